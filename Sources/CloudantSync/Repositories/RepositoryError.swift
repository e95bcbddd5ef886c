public import CloudantCore

/// Why a repository call failed, with the source that failed and the document concerned.
///
/// ```swift
/// do {
///     _ = try await notes.updateOne(note)
/// } catch {
///     switch error.code {
///     case .conflict: reloadAndRetry()
///     case .remoteUnavailable: showOffline()
///     default: report(error)
///     }
/// }
/// ```
public struct RepositoryError: CategorizedError, Sendable, CustomStringConvertible {
    /// What kind of failure it is.
    public enum Code: String, Sendable, Hashable {
        /// The remote could not be reached, timed out, or answered that it is unavailable (5xx, 429).
        case remoteUnavailable
        /// The remote refused the credentials or the operation (401, 403).
        case unauthorized
        /// A revision was stale or an entity already existed.
        case conflict
        /// The entity does not exist (for an update or a remove).
        case notFound
        /// The entity, the criteria or an answer was not valid.
        case invalidValue
        /// The store on this device failed.
        case localFailure
        /// The caller's task was cancelled.
        case cancelled
        /// Something that should not happen did; the message says what.
        case internalFailure
    }

    /// What kind of failure it is.
    public var code: Code
    /// What went wrong and what to do.
    public var message: String
    /// The source that failed.
    public var source: RepositorySource?
    /// The document concerned, when one is.
    public var documentID: String?
    /// The error underneath (a `CloudantError` from the store, a ``ReplicationError`` from HTTP).
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(
        _ code: Code, _ message: String, source: RepositorySource? = nil, documentID: String? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.source = source
        self.documentID = documentID
        self.underlying = underlying
    }

    /// Whether a strategy's fallback should answer instead: the source failed in a way the other source
    /// can make up for (unreachable, timed out, broken), never because the data was refused (a conflict,
    /// a missing document, an invalid entity), which the other source would refuse too or, worse, accept.
    public var allowsFallback: Bool {
        switch code {
        case .remoteUnavailable, .localFailure: true
        case .unauthorized, .conflict, .notFound, .invalidValue, .cancelled, .internalFailure: false
        }
    }

    /// The category callers (and the CLI's exit status, and HTTP) classify it by.
    public var category: ErrorCategory {
        switch code {
        case .remoteUnavailable, .cancelled: .unavailable
        case .unauthorized: (underlying as? ReplicationError)?.category ?? .unauthorized
        case .conflict: .conflict
        case .notFound: .notFound
        case .invalidValue: .invalidInput
        case .localFailure, .internalFailure: .internal
        }
    }

    /// `remote: conflict on n1: …`; never a document body.
    public var description: String {
        var text = source.map { "\($0.rawValue): " } ?? ""
        text += code.rawValue
        if let documentID { text += " on \(documentID)" }
        return text + ": " + message
    }

    /// A store error, classified.
    static func local(_ error: any Error) -> RepositoryError {
        if let error = error as? RepositoryError { return error }
        if error is CancellationError { return RepositoryError(.cancelled, "The call was cancelled.", source: .local) }
        guard let error = error as? CloudantError else {
            return RepositoryError(.localFailure, "The store failed: \(error)", source: .local)
        }
        let code: Code =
            switch error.category {
            case .conflict, .preconditionFailed: .conflict
            case .notFound: .notFound
            case .invalidInput, .tooLarge, .unsupported: .invalidValue
            case .unauthorized, .forbidden: .unauthorized
            case .timedOut, .unavailable, .internal: .localFailure
            }
        return RepositoryError(code, error.message, source: .local, documentID: error.context.documentID, underlying: error)
    }

    /// An HTTP failure, classified.
    static func remote(_ error: any Error, documentID: String? = nil) -> RepositoryError {
        if let error = error as? RepositoryError { return error }
        if error is CancellationError { return RepositoryError(.cancelled, "The call was cancelled.", source: .remote) }
        guard let error = error as? ReplicationError else {
            if let error = error as? CloudantError {
                var classified = local(error)
                classified.source = .remote
                return classified
            }
            return RepositoryError(.remoteUnavailable, "The remote failed: \(error)", source: .remote, documentID: documentID)
        }
        let code: Code =
            switch error {
            case .peerUnreachable, .timedOut: .remoteUnavailable
            case .cancelled: .cancelled
            case .unauthorized: .unauthorized
            case .peerRefused:
                switch error.category {
                case .conflict, .preconditionFailed: .conflict
                case .notFound: .notFound
                case .unavailable, .timedOut, .internal, .unsupported: .remoteUnavailable
                default: .invalidValue
                }
            case .localFailure: .localFailure
            case .peerViolation(_, let violation): violation.mayPass ? .remoteUnavailable : .invalidValue
            }
        return RepositoryError(code, error.description, source: .remote, documentID: documentID, underlying: error)
    }
}
