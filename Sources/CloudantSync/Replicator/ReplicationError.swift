public import CloudantCore
public import Foundation

/// Why a replication, or one of its requests, failed: what ``Replicator/run()`` and ``HTTPPeer`` throw.
///
/// Each case says what a caller can do about it, and carries the URL of the request that failed (without
/// credentials, which never appear in an error) and, when the peer answered, its HTTP status:
///
/// ```swift
/// do {
///     try await Replicator(source: remote, target: LocalPeer(store)).run()
/// } catch let error as ReplicationError {
///     switch error {
///     case .unauthorized: askForCredentials()
///     case .peerUnreachable, .timedOut: scheduleRetry()                  // the network; try later
///     case .peerRefused(_, let status, let name, let reason): log(status, name, reason)
///     case .peerViolation(let url, let violation): log(url, violation)   // a broken or hostile peer
///     case .cancelled: break
///     case .localFailure(_, let underlying): report(underlying)          // this device's store
///     }
/// }
/// ```
///
/// The retry policy retries only what may succeed later (``isRetryable``); every case reports an
/// `ErrorCategory` so the edges (the CLI's exit status, an HTTP answer) treat it like any other
/// error.
public enum ReplicationError: CategorizedError, Sendable, CustomStringConvertible {
    /// The peer could not be reached: the connection was refused or dropped, the host is unknown, TLS failed.
    /// Retried by the retry policy; thrown once its attempts are spent.
    case peerUnreachable(url: URL, reason: String)
    /// The peer refused the credentials (`status` 401), or they may not do what the replication needs (403).
    case unauthorized(url: URL, status: Int, reason: String)
    /// The peer answered with another error status; `error` and `reason` are its CouchDB error body's
    /// (`error` is `http_error` when the body had none).
    case peerRefused(url: URL, status: Int, error: String, reason: String)
    /// No answer in time: the request's own timeout (`status` nil), or the peer or a gateway said it timed out
    /// (408, 504). Retried by the retry policy; thrown once its attempts are spent.
    case timedOut(url: URL, status: Int?)
    /// The replication was cancelled (``Replicator/cancel()`` or its task); `url` is the request cut short,
    /// when one was. Running the replication again resumes from its last checkpoint.
    case cancelled(url: URL?)
    /// Something on this side failed: the local store (its error names the database), a peer
    /// implementation's own error, or the replication as configured (a URL that names no database, a filter
    /// the source cannot run). `url` is the remote peer's when the failure concerns one.
    case localFailure(url: URL?, underlying: CloudantError)
    /// The peer's answer broke the rules every answer is held to (``PeerLimits``): too large, too slow, not
    /// JSON, not what was asked for. Retried by the retry policy when asking again may help
    /// (``PeerViolation/tooSlow(bytes:seconds:)``, ``PeerViolation/deadlineExceeded(seconds:)``, a proxy's page).
    case peerViolation(url: URL, violation: PeerViolation)

    /// The URL of the request that failed, without credentials; `nil` for a failure of the local store.
    public var url: URL? {
        switch self {
        case .peerUnreachable(let url, _), .unauthorized(let url, _, _), .peerRefused(let url, _, _, _), .timedOut(let url, _),
            .peerViolation(let url, _):
            url
        case .cancelled(let url), .localFailure(let url, _):
            url
        }
    }

    /// The HTTP status the peer answered with, when it answered.
    public var status: Int? {
        switch self {
        case .unauthorized(_, let status, _), .peerRefused(_, let status, _, _): status
        case .timedOut(_, let status): status
        case .peerUnreachable, .cancelled, .localFailure, .peerViolation: nil
        }
    }

    /// Worth retrying: an unreachable peer, a timeout, 429 (too many requests) and 5xx answers, and answers
    /// that broke the rules in a way that may pass (too slow, cut short, a proxy's page). Refusals (401, 403,
    /// 404, 409, 412, bad requests), other violations, cancellation and local failures are final.
    public var isRetryable: Bool {
        switch self {
        case .peerUnreachable, .timedOut: true
        case .peerRefused(_, let status, _, _): status == 429 || status >= 500
        case .peerViolation(_, let violation): violation.mayPass
        case .unauthorized, .cancelled, .localFailure: false
        }
    }

    /// Whether the failure concerns one document's content (the source no longer has it or its attachment,
    /// or sent bytes other than its stub promised) rather than the replication: that document is reported as
    /// a failure and the others go on.
    var concernsOneDocument: Bool {
        switch self {
        case .peerRefused(_, let status, _, _): [400, 404, 409, 410, 412, 413, 415].contains(status)
        case .peerViolation(_, let violation):
            switch violation {
            case .attachmentLength, .bodyTooLarge, .notJSON: true
            default: false
            }
        default: false
        }
    }

    /// The error's name as CouchDB would write it in a failure row.
    var couchDBName: String {
        switch self {
        case .peerRefused(_, _, let name, _): name
        case .peerViolation(_, .bodyTooLarge), .peerViolation(_, .attachmentLength): "too_large"
        default: "bad_request"
        }
    }

    /// `ErrorCategory.unavailable` for an unreachable peer or a cancelled replication,
    /// `ErrorCategory.unauthorized` or `ErrorCategory.forbidden` for refused
    /// credentials, `ErrorCategory.timedOut` for a timeout, the local error's category for a
    /// local failure, for a refusal the category of the peer's status (404 not found, 409 conflict, 400
    /// invalid input, 503 unavailable, …), and for a violation `ErrorCategory.timedOut` (too slow,
    /// past the deadline), `ErrorCategory.unavailable` (not JSON by its media type: what a proxy
    /// answers), `ErrorCategory.tooLarge` (too large) or `ErrorCategory.invalidInput`.
    public var category: ErrorCategory {
        switch self {
        case .peerUnreachable, .cancelled: .unavailable
        case .unauthorized(_, let status, _): status == 403 ? .forbidden : .unauthorized
        case .timedOut: .timedOut
        case .peerRefused(_, let status, _, _): ErrorCategory(httpStatus: status)
        case .localFailure(_, let underlying): underlying.category
        case .peerViolation(_, let violation):
            switch violation {
            case .tooSlow, .deadlineExceeded: .timedOut
            case .unexpectedMediaType: .unavailable
            case .bodyTooLarge: .tooLarge
            default: .invalidInput
            }
        }
    }

    /// What failed, where and why; never credentials, never document bodies.
    public var description: String {
        let place = url.map { " (\($0.absoluteString))" } ?? ""
        return switch self {
        case .peerUnreachable(_, let reason): "The peer could not be reached\(place): \(reason)"
        case .unauthorized(_, let status, let reason): "HTTP \(status): the peer refused the credentials\(place): \(reason)"
        case .peerRefused(_, let status, let error, let reason): "HTTP \(status) \(error)\(place): \(reason)"
        case .timedOut(_, let status):
            "The peer did not answer in time\(place)\(status.map { " (HTTP \($0))" } ?? ""); it is retried, or run the replication again."
        case .cancelled: "The replication was cancelled\(place); running it again resumes from its checkpoint."
        case .localFailure(_, let underlying): "This side failed\(place): \(underlying)"
        case .peerViolation(_, let violation): "The peer's answer was refused\(place): \(violation)."
        }
    }

    /// The error for a peer's answer with an error `status`.
    static func answer(url: URL, status: Int, error: String?, reason: String?) -> ReplicationError {
        let reason = reason ?? "HTTP \(status)"
        switch status {
        case 401, 403: return .unauthorized(url: url, status: status, reason: reason)
        case 408, 504: return .timedOut(url: url, status: status)
        default: return .peerRefused(url: url, status: status, error: error ?? "http_error", reason: reason)
        }
    }

    /// What an error thrown while replicating becomes: itself when it is one, ``cancelled(url:)`` for
    /// cancellation, ``localFailure(url:underlying:)`` for the rest.
    static func wrapping(_ error: any Error, cancelled: Bool) -> ReplicationError {
        if cancelled || error is CancellationError {
            if let error = error as? ReplicationError, case .cancelled = error { return error }
            return .cancelled(url: (error as? ReplicationError)?.url)
        }
        switch error {
        case let error as ReplicationError:
            return error
        case let error as CloudantError:
            return .localFailure(url: nil, underlying: error)
        default:
            return .localFailure(
                url: nil,
                underlying: CloudantError(
                    .remoteSynchronizationFailed, "A peer failed with an error the replicator does not know: \(error)",
                    underlying: error))
        }
    }
}

/// The error type the replicator threw before it had cases to switch on.
@available(*, deprecated, renamed: "ReplicationError")
public typealias PeerFailure = ReplicationError
