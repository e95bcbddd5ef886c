internal import ArgumentParser
internal import CloudantOnly

/// The CLI's exit statuses, one per group of error categories: the contract scripts rely on.
///
/// | status | categories | for example |
/// |---|---|---|
/// | 0 | (success) | |
/// | 1 | internal | a bug or a storage failure; also `db check` finding a damaged store |
/// | 2 | invalid input, too large, unsupported | a bad command line, JSON, value, schedule, version history or export |
/// | 3 | not found | no such store, document, task, workout, file or peer database |
/// | 4 | conflict, precondition failed | a stale revision, an id or version that exists, a second outcome for an event, a stub for an attachment the revision lacks |
/// | 5 | unauthorized, forbidden | a peer or server refused the credentials |
/// | 6 | unavailable, timed out | a peer or server could not be reached, timed out or was overloaded; an address in use |
///
/// Errors know their own category (``CloudantCore/CategorizedError``, declared by the module that throws them);
/// this switch is the one place that turns a category into an exit status.
extension ErrorCategory {
    /// The exit status of a command that failed with an error of this category.
    var exitStatus: Int32 {
        switch self {
        case .internal: 1
        case .invalidInput, .tooLarge, .unsupported: 2
        case .notFound: 3
        case .conflict, .preconditionFailed: 4
        case .unauthorized, .forbidden: 5
        case .unavailable, .timedOut: 6
        }
    }

    /// ``exitStatus`` as ArgumentParser's exit code.
    var exitCode: ExitCode { ExitCode(exitStatus) }
}
