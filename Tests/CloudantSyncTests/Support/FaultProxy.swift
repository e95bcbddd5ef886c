import CloudantTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// An HTTP proxy on 127.0.0.1 in front of a live server that misbehaves on purpose, with a seeded random
/// plan: it answers 500 or 429 without forwarding, adds latency, or forwards the request (so the server
/// applies it) and then drops the connection halfway through the response — the failures a phone on a
/// train sees.
final class FaultProxy: Sendable {
    enum Fault: Sendable { case none, serverError, tooManyRequests, latency, dropResponse }

    struct Counters: Sendable {
        var forwarded = 0
        var injected = 0
    }

    let upstream: String
    private let state: LockedState

    final class LockedState: @unchecked Sendable {
        // `lock` protects `random`, `counters` and `enabled`.
        let lock = NSLock()
        var random: UInt64
        var counters = Counters()
        var enabled = true
        let faultRate: Double

        init(seed: UInt64, faultRate: Double) {
            random = seed
            self.faultRate = faultRate
        }

        func nextFault() -> Fault {
            lock.withLock {
                guard enabled else { return .none }
                random &+= 0x9E37_79B9_7F4A_7C15
                var z = random
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                let roll = Double(z % 10_000) / 10_000
                guard roll < faultRate else {
                    counters.forwarded += 1
                    return .none
                }
                counters.injected += 1
                switch z % 4 {
                case 0: return .serverError
                case 1: return .tooManyRequests
                case 2: return .latency
                default: return .dropResponse
                }
            }
        }
    }

    private let task: Task<Void, any Error>
    let url: String

    private init(upstream: String, state: LockedState, task: Task<Void, any Error>, url: String) {
        self.upstream = upstream
        self.state = state
        self.task = task
        self.url = url
    }

    var counters: Counters { state.lock.withLock { state.counters } }

    /// Turns faults off (to let a final sync finish) or back on.
    func setFaults(enabled: Bool) { state.lock.withLock { state.enabled = enabled } }

    /// Starts a proxy; `audit`, when given, sees every request before any fault is injected. `rule`, when given,
    /// chooses the fault of the requests it answers for (by method and path), in place of the seeded plan.
    static func start(
        upstream: String, seed: UInt64, faultRate: Double, audit: CouchRequestAudit? = nil,
        rule: (@Sendable (_ method: String, _ path: String) -> Fault?)? = nil
    ) async throws -> FaultProxy {
        let state = LockedState(seed: seed, faultRate: faultRate)
        let (portStream, portContinuation) = AsyncStream<Int>.makeStream()
        var logger = Logger(label: "FaultProxy")
        logger.logLevel = .critical
        let application = Application(
            responder: ProxyResponder(upstream: upstream, state: state, audit: audit, rule: rule),
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: logger)
        let task = Task { try await application.runService() }
        var iterator = portStream.makeAsyncIterator()
        let port = await iterator.next() ?? 0
        return FaultProxy(upstream: upstream, state: state, task: task, url: "http://127.0.0.1:\(port)")
    }

    func stop() async {
        task.cancel()
        _ = await task.result
    }

    struct ProxyResponder: HTTPResponder {
        let upstream: String
        let state: LockedState
        let audit: CouchRequestAudit?
        let rule: (@Sendable (_ method: String, _ path: String) -> Fault?)?

        struct Dropped: Error {}

        func respond(to request: Request, context: BasicRequestContext) async throws -> Response {
            var request = request
            let body = try await request.collectBody(upTo: 64 * 1024 * 1024)
            audit?.check(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query, headers: request.headers,
                body: body)
            let fault = rule?(request.method.rawValue, request.uri.path) ?? state.nextFault()
            switch fault {
            case .serverError:
                return Self.json(.internalServerError, #"{"error":"unknown_error","reason":"injected by the proxy"}"#)
            case .tooManyRequests:
                return Self.json(.tooManyRequests, #"{"error":"too_many_requests","reason":"injected by the proxy"}"#)
            case .latency:
                try await Task.sleep(for: .milliseconds(150))
            case .none, .dropResponse:
                break
            }
            // Forwarded by the tests' own client, off the cooperative threads the server under test needs.
            let client = TestClient(baseURL: upstream, user: nil)
            var fields: [String: String] = [:]
            for field in request.headers where !Self.hopByHop.contains(field.name.canonicalName) {
                fields[field.name.rawName] = field.value
            }
            let path = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
            let answer = try await client.send(
                request.method.rawValue, path, body: body.readableBytes > 0 ? Data(body.readableBytesView) : nil, headers: fields)
            let data = answer.body
            var headers = HTTPFields()
            headers[.contentType] = answer.header("Content-Type") ?? "application/json"
            if let cookie = answer.header("Set-Cookie") { headers[.setCookie] = cookie }
            let status = HTTPResponse.Status(code: (100...599).contains(answer.status) ? answer.status : 502)
            let buffer = ByteBuffer(bytes: data)
            if case .dropResponse = fault, data.count > 1 {
                // The server did the work; the client never hears back.
                let half = buffer.getSlice(at: 0, length: data.count / 2) ?? buffer
                return Response(status: status, headers: headers, body: ResponseBody(contentLength: data.count) { writer in
                    try await writer.write(half)
                    throw Dropped()
                })
            }
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
        }

        /// Fields the client sets itself for the hop to the server (a 100-continue it answers at once).
        static let hopByHop: Set<String> = ["host", "content-length", "connection", "transfer-encoding", "expect", "accept-encoding"]

        static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
    }
}
