internal import ArgumentParser
internal import CloudantCare
internal import CloudantHealth
internal import CloudantServer

/// The CLI's error categories, each with its own exit status: the contract scripts rely on.
///
/// | status | category |
/// |---|---|
/// | 0 | success |
/// | 1 | internal: a bug or a storage failure; also `db check` finding a damaged store |
/// | 2 | invalid input: a bad command line, JSON, value, schedule or version history |
/// | 3 | not found: no such store, document, task, workout, file or peer database |
/// | 4 | conflict: a stale revision, an id or version that exists, a second outcome for an event |
/// | 5 | unauthorized: a peer or server refused the credentials |
/// | 6 | unavailable: a peer or server could not be reached, timed out or was overloaded; an address in use |
///
/// ``init(_:)`` is the one place that decides a category, from the error's kind.
enum ErrorCategory: Int32, CaseIterable {
    case `internal` = 1
    case invalidInput = 2
    case notFound = 3
    case conflict = 4
    case unauthorized = 5
    case unavailable = 6

    /// The exit status of a command that failed with this category.
    var exitCode: ExitCode { ExitCode(rawValue) }

    /// CouchDB's error name for the category, printed when the error has no CouchDB name of its own.
    var couchDBError: String {
        switch self {
        case .internal: "internal_server_error"
        case .invalidInput: "bad_request"
        case .notFound: "not_found"
        case .conflict: "conflict"
        case .unauthorized: "unauthorized"
        case .unavailable: "service_unavailable"
        }
    }

    /// The category of any error a command can end with.
    init(_ error: any Error) {
        switch error {
        case let error as CloudantError: self = Self(error)
        case let failure as PeerFailure: self = failure.status.map(Self.init(httpStatus:)) ?? .unavailable
        case let error as ServerError: self = Self(error.code)
        default: self = .internal
        }
    }

    /// One switch over every module's codes (Core, Care, Health). A code no case names falls back on the HTTP
    /// status CouchDB gives it, so a code added later lands in a sensible category until it is listed here.
    private init(_ error: CloudantError) {
        if let kind = error.queryErrorKind {
            self = Self(httpStatus: kind.httpStatus)
            return
        }
        switch error.code {
        // Core.
        case .invalidValue, .documentValidation, .missingStub, .unknownEntityType, .invalidDesignDocument,
            .attachmentDigestMismatch:
            self = .invalidInput
        case .notFound: self = .notFound
        case .conflict: self = .conflict
        case .timedOut, .remoteSynchronizationFailed: self = .unavailable
        case .fetchFailed, .addFailed, .updateFailed, .deleteFailed: self = .internal
        case .duplicateEntityType, .duplicateKindName, .duplicatePlugin: self = .internal
        // Care.
        case .invalidSchedule, .orphanedOutcome, .brokenVersionChain: self = .invalidInput
        case .duplicateVersion, .duplicateOutcome, .entityDeleted, .updateWouldHideOutcomes: self = .conflict
        // Health.
        case .invalidUnit, .incompatibleUnits, .invalidXML, .notCDADocument, .invalidGPX, .invalidTimestamp,
            .invalidHealthExport:
            self = .invalidInput
        default: self = Self(httpStatus: error.couchDB.status)
        }
    }

    private init(_ code: ServerError.Code) {
        switch code {
        case .adminRequired, .invalidAdmin: self = .invalidInput
        case .bindFailed: self = .unavailable
        default: self = .internal
        }
    }

    /// The category of an HTTP status, for peers' answers and codes known only by their CouchDB status.
    private init(httpStatus status: Int) {
        switch status {
        case 401, 403: self = .unauthorized
        case 404, 410: self = .notFound
        case 409, 412: self = .conflict
        case 408, 429, 502, 503, 504: self = .unavailable
        case 400..<500, 501: self = .invalidInput
        default: self = .internal
        }
    }
}
