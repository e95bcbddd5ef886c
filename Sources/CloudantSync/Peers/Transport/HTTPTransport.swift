package import CloudantBase
public import Foundation

/// What carries an ``HTTPPeer``'s requests: one request out, its status, headers and body back.
///
/// The replication protocol (paths, JSON, authentication, retries) stays in the peer; a transport only moves
/// bytes, so a replication behaves the same over any of them. Two come with the package:
/// ``URLSessionTransport`` (Foundation's `URLSession`, libcurl on Linux; the default) and, in the
/// `CloudantSyncNIO` product, `AsyncHTTPClientTransport` (SwiftNIO's client, faster on Linux, and the one to
/// use with a server certificate of your own CA: pass it an `HTTPClient` with that TLS configuration).
///
/// A transport throws a `CloudantError` with a peer code for a request that got no answer
/// (`CloudantError.peerUnreachable(url:reason:)`, `peerTimedOut(url:status:)`, `cancelled(url:)`), or an answer
/// that broke the request's ``HTTPTransportRequest/limits`` (`peerViolation(url:violation:)` with
/// ``PeerViolation/bodyTooLarge(limit:)``, ``PeerViolation/tooSlow(bytes:seconds:)`` or
/// ``PeerViolation/deadlineExceeded(seconds:)``), which it enforces while the body streams in; any other error
/// it throws is read as an unreachable peer. Any answer, whatever its status, is returned. Across a redirect to another origin
/// (scheme, host or port) a transport never sends the request's credentials (`Authorization`, `Cookie`).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole answer.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse

    /// Sends `request` and writes the answer's body to a new temporary file as it arrives (never whole in
    /// memory). The caller owns the file and removes it.
    func download(_ request: HTTPTransportRequest) async throws -> HTTPTransportDownload

    /// Sends `request` with the content of `file` as its body, streamed from disk with its length.
    func upload(_ request: HTTPTransportRequest, fromFile file: URL) async throws -> HTTPTransportResponse
}

/// One request of an ``HTTPTransport``.
public struct HTTPTransportRequest: Sendable {
    /// `GET`, `PUT`, `POST`, `DELETE`, …
    public var method: String
    /// The full URL, with its query; never with credentials (they travel in ``headers``).
    public var url: URL
    /// Header fields in the order they are sent.
    public var headers: [(name: String, value: String)]
    /// The body; `nil` for none (an upload's body is its file).
    public var body: Data?
    /// The longest wait, in seconds, for the answer to begin; a long poll's wait is included.
    public var timeout: TimeInterval
    /// The bounds the answer is read within; `nil` for none.
    public var limits: TransferLimits?

    /// Creates a request.
    public init(
        method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil,
        timeout: TimeInterval = 60, limits: TransferLimits? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.limits = limits
    }

    /// Sets `name` to `value`, replacing any earlier field of that name (case-insensitive).
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
        headers.append((name, value))
    }
}

/// The answer to an ``HTTPTransportRequest``.
public struct HTTPTransportResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The header fields as received.
    public var headers: [(name: String, value: String)]
    /// The body (empty for none).
    public var body: Data

    /// Creates an answer.
    public init(status: Int, headers: [(name: String, value: String)], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first field named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// The answer to a download: its status and headers, and the file its body was written to.
public struct HTTPTransportDownload: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The header fields as received.
    public var headers: [(name: String, value: String)]
    /// A temporary file holding the body; the caller removes it.
    public var file: URL

    /// Creates a download's answer.
    public init(status: Int, headers: [(name: String, value: String)], file: URL) {
        self.status = status
        self.headers = headers
        self.file = file
    }
}

/// Why a request got no answer, or an answer that broke its limits: the package's transports' own vocabulary,
/// which they throw as the `CloudantError` ``error(for:)`` makes.
package enum HTTPTransportError: Error, Sendable, Equatable {
    /// The task was cancelled.
    case cancelled
    /// No answer in the request's time.
    case timedOut
    /// The server could not be reached, or the connection broke; the reason says how.
    case unreachable(String)
    /// The body grew past ``TransferLimits/maximumBodySize`` (`limit` bytes); the rest was not read.
    case tooLarge(limit: Int)
    /// Fewer than `bytes` bytes arrived in a `seconds`-long window (``TransferLimits/minimumRate``).
    case tooSlow(bytes: Int, seconds: Int)
    /// The answer was not complete `seconds` after the request started (``TransferLimits/deadline``).
    case deadlineExceeded(seconds: Int)

    /// The error a transport throws for this failure of `request`.
    package func error(for request: HTTPTransportRequest) -> CloudantError {
        let url = request.url
        return switch self {
        case .cancelled: .cancelled(url: url)
        case .timedOut: .peerTimedOut(url: url)
        case .unreachable(let reason): .peerUnreachable(url: url, reason: "\(request.method): \(reason)")
        case .tooLarge(let limit): .peerViolation(url: url, violation: .bodyTooLarge(limit: limit))
        case .tooSlow(let bytes, let seconds): .peerViolation(url: url, violation: .tooSlow(bytes: bytes, seconds: seconds))
        case .deadlineExceeded(let seconds): .peerViolation(url: url, violation: .deadlineExceeded(seconds: seconds))
        }
    }

    /// What any error a transport met while carrying `request` is thrown as: a `CloudantError` as it is, this
    /// type's as ``error(for:)`` makes it, cancellation as `cancelled`, anything else as an unreachable peer.
    package static func failure(_ error: any Error, of request: HTTPTransportRequest) -> CloudantError {
        switch error {
        case let error as CloudantError: error
        case let error as HTTPTransportError: error.error(for: request)
        case is CancellationError: .cancelled(url: request.url)
        default:
            Task.isCancelled
                ? .cancelled(url: request.url) : .peerUnreachable(url: request.url, reason: "\(request.method): \(error)")
        }
    }
}

extension HTTPTransportRequest {
    /// Whether `url` has the origin (scheme, host and port) of `other`: a redirect to another origin must not
    /// carry credentials.
    package static func sameOrigin(_ url: URL, _ other: URL) -> Bool {
        func port(_ url: URL) -> Int? { url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil) }
        return url.scheme?.lowercased() == other.scheme?.lowercased() && url.host?.lowercased() == other.host?.lowercased()
            && port(url) == port(other)
    }

    /// The header fields that carry credentials, removed from a request redirected to another origin.
    package static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]
}
