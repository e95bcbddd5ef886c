public import CloudantCore
public import Foundation

/// The codes of a failed exchange with a peer: what `Replicator.run()`, `HTTPPeer`, `RemoteDatabase` and the
/// repositories throw when the other side is the cause. A failure on this side (the local store, a
/// configuration) is the store's own `CloudantError`, with `context.url` naming the peer when it concerns one.
extension CloudantError.Code {
    /// The peer could not be reached: the connection was refused or dropped, the host is unknown, TLS failed.
    /// Retried by the retry policy; thrown once its attempts are spent.
    public static let peerUnreachable = Self("peerUnreachable", category: .unavailable)
    /// The peer answered with an error status: `context.status` is it, `context.peerError` and
    /// `context.peerReason` are its CouchDB error body's (`http_error` when it sent none). The error's category
    /// is the status's (`ErrorCategory(httpStatus:)`: 401 unauthorized, 403 forbidden, 404 not found, 409
    /// conflict, 429 and 503 unavailable, …), so this constant is for matching; `peerRefused(status:)` makes
    /// the code of one answer.
    public static let peerRefused = Self("peerRefused", category: .invalidInput)
    /// No answer in time: the request's own timeout (`context.status` nil), or the peer or a gateway said it
    /// timed out (408, 504). Retried by the retry policy; thrown once its attempts are spent.
    public static let peerTimedOut = Self("peerTimedOut", category: .timedOut)
    /// The peer's answer broke the rules every answer is held to (`PeerLimits`): too large, too slow, not JSON,
    /// not what was asked for. `CloudantError.peerViolation` says which rule; the category follows it
    /// (`peerViolation(_:)`). Retried when asking again may help.
    public static let peerViolation = Self("peerViolation", category: .invalidInput)

    /// The code of a peer's error answer, in the category of its status.
    public static func peerRefused(status: Int) -> Self {
        Self(peerRefused.rawValue, category: ErrorCategory(httpStatus: status))
    }

    /// The code of an answer that broke `violation`: `ErrorCategory.timedOut` when it was too slow or past the
    /// deadline, `ErrorCategory.unavailable` when it was not JSON by its media type (what a proxy answers),
    /// `ErrorCategory.tooLarge` when it was too large, `ErrorCategory.invalidInput` otherwise.
    public static func peerViolation(_ violation: PeerViolation) -> Self {
        let category: ErrorCategory =
            switch violation {
            case .tooSlow, .deadlineExceeded: .timedOut
            case .unexpectedMediaType: .unavailable
            case .bodyTooLarge: .tooLarge
            default: .invalidInput
            }
        return Self(peerViolation.rawValue, category: category)
    }

    /// Whether the code names a failure of the peer rather than of this side.
    public var isPeerFailure: Bool { [.peerUnreachable, .peerRefused, .peerTimedOut, .peerViolation].contains(self) }
}

/// What a caller of the replicator, a remote database or a repository reads from an error.
extension CloudantError {
    /// The rule a `CloudantError.Code.peerViolation` answer broke.
    public var peerViolation: PeerViolation? { underlying as? PeerViolation }

    /// Worth retrying: an unreachable peer, a timeout, 429 (too many requests) and 5xx answers, and answers
    /// that broke the rules in a way that may pass (too slow, cut short, a proxy's page). Refusals (401, 403,
    /// 404, 409, 412, bad requests), other violations, cancellation and failures of this side are final.
    ///
    /// ```swift
    /// do {
    ///     try await Replicator(source: remote, target: LocalPeer(store)).run()
    /// } catch let error as CloudantError where error.isRetryable {
    ///     scheduleRetry()   // the network; try later
    /// }
    /// ```
    public var isRetryable: Bool {
        switch code {
        case .peerUnreachable, .peerTimedOut: true
        case .peerRefused: context.status.map { $0 == 429 || $0 >= 500 } ?? false
        case .peerViolation: peerViolation?.mayPass ?? false
        default: false
        }
    }

    /// Whether a repository strategy's fallback should answer instead: the source failed in a way the other
    /// source can make up for (unreachable, timed out, broken), never because the data was refused (a
    /// conflict, a missing document, an invalid entity), which the other source would refuse too or, worse,
    /// accept.
    public var allowsFallback: Bool {
        guard code != .cancelled else { return false }
        if isRetryable { return true }
        return !code.isPeerFailure && [.timedOut, .unavailable, .internal].contains(category)
    }

    /// Whether the failure concerns one document's content (the source no longer has it or its attachment,
    /// or sent bytes other than its stub promised) rather than the replication: that document is reported as
    /// a failure and the others go on.
    var concernsOneDocument: Bool {
        switch code {
        case .peerRefused: [400, 404, 409, 410, 412, 413, 415].contains(context.status ?? 0)
        case .peerViolation:
            switch peerViolation {
            case .attachmentLength?, .bodyTooLarge?, .notJSON?: true
            default: false
            }
        default: false
        }
    }

    /// The error's name as CouchDB would write it in a failure row.
    var couchDBName: String {
        if code == .peerRefused, let name = context.peerError { return name }
        switch peerViolation {
        case .bodyTooLarge?, .attachmentLength?: return "too_large"
        default: return "bad_request"
        }
    }

    /// The peer could not be reached at `url`.
    public static func peerUnreachable(url: URL, reason: String) -> CloudantError {
        CloudantError(.peerUnreachable, "The peer could not be reached: \(reason)", context: Context(url: url))
    }

    /// No answer from `url` in time; `status` is the peer's or gateway's when one said so.
    public static func peerTimedOut(url: URL, status: Int? = nil) -> CloudantError {
        CloudantError(
            .peerTimedOut, "The peer did not answer in time; it is retried, or run the replication again.",
            context: Context(url: url, status: status))
    }

    /// The peer at `url` answered `status` with the CouchDB error `error` (`http_error` when it sent none).
    public static func peerRefused(url: URL, status: Int, error: String?, reason: String?) -> CloudantError {
        let name = error ?? "http_error"
        let reason = reason ?? "HTTP \(status)"
        return CloudantError(
            .peerRefused(status: status), "HTTP \(status) \(name): \(reason)",
            context: Context(url: url, status: status, peerError: name, peerReason: reason))
    }

    /// The peer's answer from `url` broke `violation`.
    public static func peerViolation(url: URL, violation: PeerViolation) -> CloudantError {
        CloudantError(
            .peerViolation(violation), "The peer's answer was refused: \(violation).", context: Context(url: url),
            underlying: violation)
    }

    /// The replication was cancelled; `url` is the request cut short, when one was.
    public static func cancelled(url: URL?) -> CloudantError {
        CloudantError(
            .cancelled, "The replication was cancelled; running it again resumes from its checkpoint.", context: Context(url: url))
    }

    /// The error for a peer's answer with an error `status`: a timeout for 408 and 504, a refusal otherwise.
    static func answer(url: URL, status: Int, error: String?, reason: String?) -> CloudantError {
        switch status {
        case 408, 504: peerTimedOut(url: url, status: status)
        default: peerRefused(url: url, status: status, error: error, reason: reason)
        }
    }

    /// What an error thrown while replicating becomes: `CloudantError.Code.cancelled` for cancellation,
    /// itself when it is a `CloudantError`, and for another error (a peer implementation's own) a
    /// `CloudantError.Code.peerUnreachable` that names it.
    static func replicating(_ error: any Error, cancelled: Bool) -> CloudantError {
        let known = error as? CloudantError
        if cancelled || error is CancellationError {
            if let known, known.code == .cancelled { return known }
            return .cancelled(url: known?.context.url)
        }
        if let known { return known }
        return CloudantError(
            .peerProtocolError, "A peer failed with an error the replicator does not know: \(error)", underlying: error)
    }

    /// The same error naming `url` as the peer it concerns, unless it names one already.
    func concerning(_ url: URL?) -> CloudantError {
        guard context.url == nil, let url else { return self }
        return adding { $0.url = url }
    }
}

/// The replicator's error type before every failure became a `CloudantError`.
@available(*, deprecated, renamed: "CloudantError", message: "A peer's failure is a CloudantError with a peer code (peerUnreachable, peerRefused, peerTimedOut, peerViolation)")
public typealias ReplicationError = CloudantError

/// The replicator's error type before it had cases to switch on.
@available(*, deprecated, renamed: "CloudantError")
public typealias PeerFailure = CloudantError
