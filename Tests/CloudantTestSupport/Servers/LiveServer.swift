public import CloudantServer
import CloudantStore
public import Foundation

/// A real ``CloudantServer/CouchServer`` on 127.0.0.1, serving a fresh temporary folder: what every test that
/// speaks HTTP to the server, replicates over HTTP or proxies it starts.
///
/// ``start(folder:port:_:)`` returns once the server listens (it awaits the bound address, never a pause), and a
/// server can be stopped and started again on the same folder and port (a remote that goes away and comes back).
///
/// ```swift
/// try await withLiveServer { server in
///     let answer = try await server.admin.put("/db", [:])
///     #expect(answer.status == 201)
/// }
/// ```
public final class LiveServer: Sendable {
    /// The server admin every test server has.
    public static let admin = ServerAdmin(name: "admin", password: "s3cret")

    /// The running server.
    public let server: CouchServer
    /// `http://127.0.0.1:PORT`.
    public let baseURL: String
    /// The data folder (one store file per database).
    public let folder: String
    /// The configuration it was started with, to start it again.
    public let configuration: ServerConfiguration
    private let task: Task<Void, any Error>

    private init(server: CouchServer, baseURL: String, configuration: ServerConfiguration, task: Task<Void, any Error>) {
        self.server = server
        self.baseURL = baseURL
        folder = configuration.directory.path
        self.configuration = configuration
        self.task = task
    }

    /// Starts a server and returns once it listens.
    /// - Parameters:
    ///   - existing: a data folder to serve again (a restart); a fresh temporary one when nil.
    ///   - port: the port to listen on; one the kernel picks when 0.
    ///   - configure: adjusts the test configuration (admin ``admin``, a PBKDF2 cost of 1,000 iterations).
    /// - Throws: what the server throws when it cannot open its folder or bind, or `CancellationError` when it did
    ///   not listen within ``TestDeadline/generous``.
    public static func start(
        folder existing: String? = nil, port: Int = 0, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> LiveServer {
        let folder = existing ?? NSTemporaryDirectory() + "cloudant-server-tests-" + UUID().uuidString
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: port, directory: StoreDirectory(path: folder), admin: admin, passwordIterations: 1_000)
        configure(&configuration)
        return try await start(configuration: configuration)
    }

    /// Starts a server with exactly `configuration` and returns once it listens.
    /// - Throws: what the server throws when it cannot open its folder or bind, or `CancellationError` when it did
    ///   not listen within ``TestDeadline/generous``.
    public static func start(configuration: ServerConfiguration) async throws -> LiveServer {
        let server = try CouchServer(configuration: configuration)
        let task = Task { try await server.run() }
        // Only a server that never binds is cancelled (which fails `url()` instead of hanging the test).
        let watchdog = Task {
            try await Task.sleep(for: TestDeadline.generous)
            task.cancel()
        }
        defer { watchdog.cancel() }
        let url = try await server.url()
        return LiveServer(server: server, baseURL: url, configuration: configuration, task: task)
    }

    /// The port the server listens on.
    public var port: Int { Int(baseURL.split(separator: ":").last ?? "0") ?? 0 }

    /// The URL of database `name` on this server.
    public func url(_ database: String) -> URL {
        URL(string: baseURL + "/" + database) ?? URL(fileURLWithPath: "/")
    }

    /// A client authenticated as the server admin.
    public var admin: TestClient { TestClient(baseURL: baseURL, user: (Self.admin.name, Self.admin.password)) }

    /// An anonymous client.
    public var anonymous: TestClient { TestClient(baseURL: baseURL, user: nil) }

    /// A client for `name`/`password`.
    public func client(_ name: String, _ password: String) -> TestClient {
        TestClient(baseURL: baseURL, user: (name, password))
    }

    /// Stops the server gracefully and deletes its folder, unless `keepingFolder` (to start another server on it).
    /// A graceful shutdown that has not ended within ``TestDeadline/generous`` is cancelled.
    public func stop(keepingFolder: Bool = false) async {
        await server.shutdown()
        let task = task
        let watchdog = Task {
            try await Task.sleep(for: TestDeadline.generous)
            task.cancel()
        }
        _ = await task.result
        watchdog.cancel()
        if !keepingFolder { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Waits until the port refuses connections (after ``stop(keepingFolder:)``): the listening socket can close a
    /// moment after the server's run returns, and until then the kernel still queues connections for it.
    /// - Throws: ``DeadlineExceeded`` when something still accepts on the port after the deadline.
    public func waitUntilRefused() async throws {
        let port = port
        try await waitUntil("port \(port) refusing connections") { !LoopbackSocket.accepts(port: port) }
    }

    /// Stops the server, keeping its folder, and starts it again on the same folder, port and configuration: a
    /// process restart as its clients see it.
    /// - Throws: what ``start(configuration:)`` throws; ``DeadlineExceeded`` when the old socket never closes.
    public func restart() async throws -> LiveServer {
        await stop(keepingFolder: true)
        try await waitUntilRefused()
        var configuration = configuration
        configuration.port = port
        return try await Self.start(configuration: configuration)
    }
}

/// Runs `body` against a fresh live server, always stopping it (and deleting its folder) afterwards.
/// - Throws: what starting the server or `body` throws.
public func withLiveServer(
    _ configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (LiveServer) async throws -> Void
) async throws {
    let server = try await LiveServer.start(configure)
    do {
        try await body(server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Runs `body` against a fresh live server that it may restart (`server = try await server.restart()`); whichever
/// server runs at the end is stopped, and its folder deleted.
/// - Throws: what starting the server or `body` throws.
public func withRestartableLiveServer(_ body: (inout LiveServer) async throws -> Void) async throws {
    var server = try await LiveServer.start()
    do {
        try await body(&server)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Runs `body` against a fresh live server with the database `name` created, handing it the server and an admin
/// client; the server is stopped (and its folder deleted) afterwards.
///
/// ```swift
/// try await withLiveDatabase { _, client in
///     _ = try await client.put("/db/a", ["v": 1])
///     #expect(try await client.get("/db/a").json["v"] == 1)
/// }
/// ```
/// - Throws: what starting the server, creating the database or `body` throws.
public func withLiveDatabase(_ name: String = "db", _ body: (LiveServer, TestClient) async throws -> Void) async throws {
    try await withLiveServer { server in
        let client = server.admin
        _ = try await client.send("PUT", "/\(name)")
        try await body(server, client)
    }
}
