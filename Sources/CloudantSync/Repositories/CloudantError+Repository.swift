public import CloudantCore
internal import Foundation

/// How a repository reports a failure: as the error of the source that failed, with what the repository knows
/// added. A remote's failure names the remote's URL (`context.url`), so `CloudantError.repositorySource` tells
/// the two sources apart; `CloudantError.allowsFallback` says whether the other source may answer instead.
extension CloudantError {
    /// The repository source that failed: `.remote` when the error names a peer's URL, `.local` otherwise.
    public var repositorySource: RepositorySource { context.url == nil ? .local : .remote }

    /// A failure of the store on this device, as a repository reports it.
    static func fromStore(_ error: any Error) -> CloudantError {
        switch error {
        case let error as CloudantError: error
        case is CancellationError: CloudantError(.cancelled, "The call was cancelled.")
        default: CloudantError(.storeUnreadable, "The store failed: \(error)", underlying: error)
        }
    }

    /// A failure of the remote at `url`, as a repository reports it: the request's own URL when the error
    /// names one, the database's otherwise, and the document concerned when one is.
    static func fromRemote(_ error: any Error, url: URL, documentID: String? = nil) -> CloudantError {
        let known: CloudantError =
            switch error {
            case let error as CloudantError: error
            case is CancellationError: CloudantError(.cancelled, "The call was cancelled.")
            default: .peerUnreachable(url: url, reason: "\(error)")
            }
        return known.concerning(url).adding { context in
            if context.documentID == nil { context.documentID = documentID }
        }
    }

}

/// The repositories' error type before every failure became a `CloudantError`.
@available(*, deprecated, renamed: "CloudantError", message: "A repository throws the failing source's CloudantError; repositorySource says which")
public typealias RepositoryError = CloudantError
