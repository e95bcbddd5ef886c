internal import CloudantCore
internal import CloudantStore
internal import Hummingbird
internal import HummingbirdCore
internal import HummingbirdTLS
internal import Logging
internal import NIOCore
public import ServiceLifecycle

/// A CouchDB-compatible HTTP server for the stores in a folder: one database per store, opened on first
/// use. CouchDB's and PouchDB's replicators, curl and other CouchDB tools can use it as a CouchDB.
///
/// It is a `Service`: run it in a `ServiceGroup` for graceful shutdown on SIGTERM, or call ``run()`` in a
/// task and cancel the task to stop.
///
/// ```swift
/// let server = try CouchServer(configuration: ServerConfiguration(
///     port: 0, directory: StoreDirectory(path: "cloudant-data"),
///     admin: ServerAdmin(name: "admin", password: "secret")))
/// let running = Task { try await server.run() }
/// let port = try await server.port()        // the free port picked for port 0
/// // … curl http://admin:secret@127.0.0.1:\(port)/_all_dbs …
/// running.cancel()
/// ```
public final class CouchServer: Service, Sendable {
    /// The configuration the server was created with.
    public let configuration: ServerConfiguration
    let endpoint: CouchEndpoint
    /// The TLS settings, checked at creation, when the server speaks HTTPS.
    private let tlsConfiguration: TLSConfiguration?
    private let binding = Locked<Binding>(Binding())

    private struct Binding {
        var port: Int?
        var failure: (any Error)?
        var waiters: [CheckedContinuation<Int, any Error>] = []
        var group: ServiceGroup?
        var stopRequested = false
    }

    /// Prepares a server: checks the configuration, reads (or creates) the server identity in the data
    /// folder, opens `_users` and hashes the admin password. Nothing listens until ``run()``.
    /// - Throws: `CloudantError` `.adminRequired` when binding a non-loopback address with no admin,
    ///   `.dataFolderUnusable` when the data folder cannot be written, `.tlsUnusable` when the TLS certificate
    ///   or key cannot be read or do not fit together.
    public init(configuration: ServerConfiguration) throws {
        guard configuration.admin != nil || configuration.isLoopback else {
            throw CloudantError(
                .adminRequired,
                "Refusing to listen on \(configuration.host) without an admin: anyone who can reach it could read and "
                    + "change every database. Configure an admin (--admin USER:PASSWORD or the CLOUDANT_ADMIN "
                    + "environment variable), or bind 127.0.0.1.")
        }
        self.configuration = configuration
        tlsConfiguration = try configuration.tls?.serverConfiguration()
        endpoint = try CouchEndpoint(configuration: configuration)
    }

    /// The server's stable identity (`GET /` `uuid`).
    public var uuid: String { endpoint.identity.uuid }

    /// Serves requests until the task is cancelled or a graceful shutdown is requested.
    /// - Throws: `CloudantError` `.bindFailed` when the address cannot be bound.
    public func run() async throws {
        await endpoint.start()
        var logger = Logger(label: "CloudantServer", factory: { ServerLogHandler(label: $0) })
        logger.logLevel = .error
        let http1 = HTTPServerBuilder.http1(
            configuration: HTTP1Channel.Configuration(
                additionalChannelHandlers: [ConnectionGuard(), ExpectContinue()],
                idleTimeout: configuration.idleTimeout.map { .seconds(Int64(max(1, $0))) }))
        let application = Application(
            responder: CouchResponder(endpoint: endpoint),
            server: try tlsConfiguration.map { try .tls(http1, tlsConfiguration: $0) } ?? http1,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "CouchDB/\(CouchEndpoint.couchDBVersion) (OTFCloudantStore \(CloudantVersion.current))"),
            onServerRunning: { [binding, configuration] channel in
                let port = channel.localAddress?.port ?? configuration.port
                let waiters = binding.withLock { state in
                    state.port = port
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume(returning: port) }
            },
            logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(services: [application], logger: logger)
        // A graceful shutdown lets requests in progress finish for the grace period (feeds end at once), then
        // cancels them; cancelled requests stop within a regex progress report or a SQLite step.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(max(0, configuration.shutdownGracePeriod))
        // No bound on the cancellation itself: ServiceLifecycle turns an over-long one into a fatalError, which
        // would crash an app that embeds the server (it crashed the whole test process once on a loaded machine,
        // when a shutdown's cancellation took over 5 s). Cancelled requests end on their own.
        groupConfiguration.maximumCancellationDuration = nil
        let group = ServiceGroup(configuration: groupConfiguration)
        let stopRequested = binding.withLock { state in
            state.group = group
            return state.stopRequested
        }
        if stopRequested {
            await endpoint.stop()
            return
        }
        do {
            try await group.run()
            await endpoint.stop()
        } catch {
            await endpoint.stop()
            let failure = CloudantError(
                .bindFailed, "Could not serve on \(configuration.host):\(configuration.port); is the port in use?", underlying: error)
            let waiters = binding.withLock { state in
                state.failure = failure
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(throwing: failure) }
            throw failure
        }
    }

    /// Stops accepting connections, lets in-flight requests finish, and makes ``run()`` return.
    public func shutdown() async {
        let group = binding.withLock { state in
            state.stopRequested = true
            return state.group
        }
        await group?.triggerGracefulShutdown()
    }

    /// The port the server listens on, once it does (the picked port when configured with port 0).
    /// - Throws: `CloudantError` `.bindFailed` when the server could not start.
    public func port() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let ready: Result<Int, any Error>? = binding.withLock { state in
                if let port = state.port { return .success(port) }
                if let failure = state.failure { return .failure(failure) }
                state.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }

    /// The server's base URL, such as `http://127.0.0.1:5984` (`https://` with TLS), once it listens.
    public func url() async throws -> String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return (tlsConfiguration == nil ? "http" : "https") + "://\(host):\(try await port())"
    }
}

/// Hands every request to the endpoint; all routing is CouchDB's, not Hummingbird's router, because
/// CouchDB paths carry ids with `/` (`_design/x`, `_local/x`) and percent-encoded database names.
///
/// The request runs on its connection's task, which is cancelled when the connection closes (the client
/// went away, see ``ConnectionGuard`` and ``CancelOnClose``) or when the server's task is cancelled, so no
/// request outlives its client.
struct CouchResponder: HTTPResponder {
    let endpoint: CouchEndpoint

    func respond(to request: Request, context: CouchRequestContext) async throws -> Response {
        let connection = ClientConnection(channel: context.channel, watchers: endpoint.connectionWatchers)
        let canceller = CancelOnClose()
        let token = connection.whenClosed { canceller.cancel() }
        let response = await endpoint.respond(to: request, connection: connection)
        canceller.finish()
        connection.forget(token)
        guard request.method == .connect else { return response }
        // SwiftNIO frames every answer to CONNECT without a body (it reads RFC 9110's "a 2xx answer to
        // CONNECT has no body" as "no answer to CONNECT has one") and stops parsing the connection, which
        // it takes for a tunnel. CouchDB answers CONNECT like any unknown method, with a status and a
        // JSON body. The status is kept; the body cannot be sent, so the connection is closed once the
        // head is out: the client reads to the end of the stream instead of waiting for a body forever.
        let channel = context.channel
        var headers = response.headers
        headers[.connection] = "close"
        headers[.contentLength] = nil
        return Response(
            status: response.status, headers: headers,
            body: ResponseBody { writer in
                try await writer.finish(nil)
                channel.close(promise: nil)
            })
    }
}

/// What to do when each open connection closes: cancel its running request, end its feed.
///
/// One close callback per connection, not per request: a keep-alive connection (a replicator's) may carry
/// hundreds of thousands of requests, and a callback per request would keep each one's task until the
/// connection closed. Actions are forgotten as soon as their request is done.
final class ConnectionWatchers: Sendable {
    private struct State {
        var connections: [ObjectIdentifier: [UInt64: @Sendable () -> Void]] = [:]
        var nextToken: UInt64 = 0
    }

    private let state = Locked(State())

    /// Runs `action` when `channel` closes (soon after, if it already has); returns the token that
    /// ``forget(_:on:)`` takes.
    func add(_ action: @escaping @Sendable () -> Void, on channel: any Channel) -> UInt64 {
        let key = ObjectIdentifier(channel)
        let (token, isNew) = state.withLock { state in
            state.nextToken += 1
            let isNew = state.connections[key] == nil
            state.connections[key, default: [:]][state.nextToken] = action
            return (state.nextToken, isNew)
        }
        if isNew {
            channel.closeFuture.whenComplete { [state] _ in
                let actions = state.withLock { $0.connections.removeValue(forKey: key).map { Array($0.values) } ?? [] }
                for action in actions { action() }
            }
        }
        return token
    }

    /// Forgets an action whose request is done.
    func forget(_ token: UInt64, on channel: any Channel) {
        _ = state.withLock { $0.connections[ObjectIdentifier(channel)]?.removeValue(forKey: token) }
    }

    /// Connections with a close callback registered (tests check that closed ones are forgotten).
    var openConnections: Int { state.withLock { $0.connections.count } }

    /// Actions registered over all connections.
    var pendingActions: Int { state.withLock { $0.connections.values.reduce(0) { $0 + $1.count } } }
}

/// The request context: Hummingbird's, plus the connection the request came on.
struct CouchRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's connection.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

/// The connection a request came on, as handlers see it: who the client is and when it goes away.
struct ClientConnection: Sendable {
    let channel: any Channel
    let watchers: ConnectionWatchers

    /// The client's IP address, when the connection has one.
    var address: String? { channel.remoteAddress?.ipAddress }

    /// Runs `action` once the connection closes (soon after, if it already has); ``forget(_:)`` the token
    /// when the work it stops is done.
    @discardableResult
    func whenClosed(_ action: @escaping @Sendable () -> Void) -> UInt64 {
        watchers.add(action, on: channel)
    }

    /// Drops an action registered with ``whenClosed(_:)``.
    func forget(_ token: UInt64) {
        watchers.forget(token, on: channel)
    }
}

extension CouchServer {
    /// Runs the server until SIGTERM or SIGINT, then shuts down gracefully (in-flight requests finish).
    ///
    /// `onListening` runs once with the base URL when the server accepts connections.
    public func runUntilTerminated(onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [self], gracefulShutdownSignals: [.sigterm, .sigint], logger: Logger(label: "CloudantServer")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            tasks.addTask { onListening(try await self.url()) }
            try await tasks.waitForAll()
        }
    }
}
