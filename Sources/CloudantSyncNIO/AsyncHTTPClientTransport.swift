public import AsyncHTTPClient
public import CloudantSync
internal import CloudantBase
public import Foundation
internal import NIOCore
internal import NIOHTTP1

/// An `HTTPTransport` over SwiftNIO's `AsyncHTTPClient`: kept-alive connections from a pool
/// on NIO's event loops, and no libcurl between the replicator and the socket.
///
/// ```swift
/// let remote = try HTTPPeer(url: url, authentication: .session(user: "u", password: p),
///                           transport: AsyncHTTPClientTransport())
/// ```
///
/// By default requests go through ``replicationClient`` (the system's trusted certificates, connections kept
/// for reuse, nothing to shut down). To trust a certificate of your own CA, or to bound the pool, pass an
/// `HTTPClient` you made with that configuration, and shut it down when you no longer replicate.
///
/// A request's timeout bounds the wait for the answer's head (a long poll's wait included); while the body
/// arrives, the client's read timeout bounds each silence (90 s for ``replicationClient``), and the request's
/// `TransferLimits` its size, pace and deadline: the body is read in pieces and never held past
/// its limit. A redirect to another origin goes without `Authorization` and `Cookie` (AsyncHTTPClient removes
/// them, whatever client is passed).
public struct AsyncHTTPClientTransport: HTTPTransport {
    private let client: HTTPClient

    /// A transport over `client` (``replicationClient`` by default). The caller keeps a client it made and
    /// shuts it down.
    public init(client: HTTPClient = Self.replicationClient) {
        self.client = client
    }

    /// The process-wide client the transport uses unless given another, never shut down: the system's trusted
    /// certificates, redirects followed, connections kept for reuse, 90 s of silence at most while an answer
    /// arrives, and no inflating of bodies (the peer asks for what it wants as it is stored).
    ///
    /// Unlike `HTTPClient.shared`, a connection that cannot be made fails the request at once, as it does with
    /// URLSession, rather than being tried again until the request's time is up: the replication's retry policy
    /// decides when to try again, and a wrong address or an untrusted certificate is reported at once.
    public static let replicationClient: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            certificateVerification: .fullVerification,
            redirectConfiguration: .follow(max: 20, allowCycles: false),
            timeout: .init(connect: .seconds(30), read: .seconds(90)),
            decompression: .disabled)
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()

    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        var outgoing = try Self.clientRequest(request)
        if let body = request.body { outgoing.body = .bytes(ByteBuffer(bytes: body)) }
        return try await whole(outgoing, of: request)
    }

    public func download(_ request: HTTPTransportRequest) async throws -> HTTPTransportDownload {
        let outgoing = try Self.clientRequest(request)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-download-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw CloudantError(
                .storeUnwritable, "Cannot create the download file \(file.path).", context: .init(file: file.path, url: request.url))
        }
        defer { try? handle.close() }
        let (client, monitor) = (self.client, TransferMonitor(request.limits))
        do {
            return try await Self.mapFailures(of: request) {
                try await monitor.run {
                    let response = try await client.execute(outgoing, timeout: Self.timeAmount(request.timeout))
                    monitor.headArrived()
                    for try await chunk in response.body {
                        try monitor.received(chunk.readableBytes)
                        try chunk.withUnsafeReadableBytes { try handle.write(contentsOf: $0) }
                    }
                    return HTTPTransportDownload(status: Int(response.status.code), headers: Self.headers(response.headers), file: file)
                }
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
    }

    public func upload(_ request: HTTPTransportRequest, fromFile file: URL) async throws -> HTTPTransportResponse {
        var outgoing = try Self.clientRequest(request)
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
        guard let size else {
            throw CloudantError(.storeUnreadable, "Cannot read the upload file \(file.path).", context: .init(file: file.path, url: request.url))
        }
        outgoing.headers.remove(name: "Content-Length")  // The body's known length sets it.
        outgoing.body = .stream(FileChunks(file: file), length: .known(Int64(size)))
        return try await whole(outgoing, of: request)
    }

    /// Sends `outgoing` and collects the answer piece by piece, within `request`'s limits.
    private func whole(_ outgoing: HTTPClientRequest, of request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let (client, monitor, timeout, limits) = (self.client, TransferMonitor(request.limits), request.timeout, request.limits)
        return try await Self.mapFailures(of: request) {
            try await monitor.run {
                let response = try await client.execute(outgoing, timeout: Self.timeAmount(timeout))
                monitor.headArrived()
                // A stated length past the limit is refused before any of it is read.
                if let limit = limits?.maximumBodySize, let stated = response.headers.first(name: "Content-Length").flatMap(Int.init),
                    stated > limit
                {
                    throw HTTPTransportError.tooLarge(limit: limit)
                }
                var body = Data()
                for try await chunk in response.body {
                    try monitor.received(chunk.readableBytes)
                    chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                }
                return HTTPTransportResponse(status: Int(response.status.code), headers: Self.headers(response.headers), body: body)
            }
        }
    }

    private static func clientRequest(_ request: HTTPTransportRequest) throws -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers { outgoing.headers.replaceOrAdd(name: name, value: value) }
        return outgoing
    }

    private static func headers(_ headers: HTTPHeaders) -> [(name: String, value: String)] {
        headers.map { ($0.name, $0.value) }
    }

    private static func timeAmount(_ seconds: TimeInterval) -> TimeAmount {
        .nanoseconds(Int64(min(seconds, 1e9) * 1e9))
    }

    /// Runs a client call for `request`, turning its failures into the `CloudantError` the transport contract
    /// names.
    private static func mapFailures<T>(of request: HTTPTransportRequest, _ call: @Sendable () async throws -> T) async throws -> T {
        do {
            return try await call()
        } catch {
            if !Task.isCancelled, let failure = error as? HTTPClientError {
                switch failure {
                case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout:
                    throw HTTPTransportError.timedOut.error(for: request)
                case .cancelled: throw HTTPTransportError.cancelled.error(for: request)
                default: break
                }
            }
            throw HTTPTransportError.failure(error, of: request)
        }
    }
}

/// A file's content as 64 KiB buffers, read as the request body is sent.
private struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: URL

    func makeAsyncIterator() -> Iterator { Iterator(handle: try? FileHandle(forReadingFrom: file)) }

    struct Iterator: AsyncIteratorProtocol {
        let handle: FileHandle?

        mutating func next() async throws -> ByteBuffer? {
            guard let handle else { throw CloudantError(.storeUnreadable, "The upload file could not be opened.") }
            guard let data = try handle.read(upToCount: 64 * 1024), !data.isEmpty else {
                try? handle.close()
                return nil
            }
            return ByteBuffer(bytes: data)
        }
    }
}
