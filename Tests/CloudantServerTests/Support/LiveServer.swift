import CloudantCore
import CloudantServer
import CloudantStore
import Foundation

/// A real server on 127.0.0.1 with a random free port, serving a fresh temporary folder.
final class LiveServer: Sendable {
    static let admin = ServerAdmin(name: "admin", password: "s3cret")

    let server: CouchServer
    let baseURL: String
    let folder: String
    private let task: Task<Void, any Error>

    private init(server: CouchServer, baseURL: String, folder: String, task: Task<Void, any Error>) {
        self.server = server
        self.baseURL = baseURL
        self.folder = folder
        self.task = task
    }

    /// Starts a server; `configure` adjusts the test configuration (small PBKDF2 cost, admin set).
    /// `folder` reopens an existing data folder (a restart); by default a fresh one is made.
    static func start(
        folder existing: String? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> LiveServer {
        let folder = existing ?? NSTemporaryDirectory() + "cloudant-server-tests-" + UUID().uuidString
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder), admin: admin, passwordIterations: 1_000)
        configure(&configuration)
        let server = try CouchServer(configuration: configuration)
        let task = Task { try await server.run() }
        // A server that has not bound within 60 s is cancelled, which fails `url()` instead of hanging. (10 s was
        // too short under the whole suite on two loaded cores: a server that bound late was then cancelled, and
        // its test met a closed port.)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            task.cancel()
        }
        let url = try await server.url()
        watchdog.cancel()
        return LiveServer(server: server, baseURL: url, folder: folder, task: task)
    }

    /// The port the server listens on.
    var port: Int { Int(baseURL.split(separator: ":").last ?? "0") ?? 0 }

    /// A client authenticated as the server admin.
    var admin: TestClient { TestClient(baseURL: baseURL, user: (Self.admin.name, Self.admin.password)) }

    /// An anonymous client.
    var anonymous: TestClient { TestClient(baseURL: baseURL, user: nil) }

    /// A client for `name`/`password`.
    func client(_ name: String, _ password: String) -> TestClient {
        TestClient(baseURL: baseURL, user: (name, password))
    }

    /// Stops the server gracefully (cancelling it if that takes over 2 s) and deletes its folder, unless
    /// `keepingFolder` (to start another server on it).
    func stop(keepingFolder: Bool = false) async {
        await server.shutdown()
        let task = task
        let watchdog = Task {
            try await Task.sleep(for: .seconds(2))
            task.cancel()
        }
        _ = await task.result
        watchdog.cancel()
        if !keepingFolder { try? FileManager.default.removeItem(atPath: folder) }
    }
}

/// Runs `body` against a fresh live server, always stopping it.
func withLiveServer(
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

