import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A live `CouchServer` on 127.0.0.1 that a test can stop and start again on the same port and data
/// folder (a remote that goes away and comes back), and a device store beside it.
final class RestartableServer: @unchecked Sendable {
    // `lock` protects `server` and `running`; the rest is immutable after `start()`.
    private let lock = NSLock()
    private var server: CouchServer?
    private var running: Task<Void, any Error>?
    let folder: URL
    private(set) var port = 0
    private(set) var baseURL = ""

    static let admin = ServerAdmin(name: "admin", password: "s3cret")

    init() {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-repositories-\(UUID().uuidString)")
    }

    /// Starts the server (on a free port the first time, on the same port after).
    func start() async throws {
        let server = try CouchServer(
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: port, directory: StoreDirectory(path: folder.appendingPathComponent("server").path),
                admin: Self.admin, passwordIterations: 1_000))
        let running = Task { try await server.run() }
        let url = try await server.url()
        lock.withLock {
            self.server = server
            self.running = running
        }
        baseURL = url
        port = URLComponents(string: url)?.port ?? 0
    }

    /// Stops the server; requests to it are refused until ``start()``.
    func stop() async {
        let (server, running) = lock.withLock { (self.server, self.running) }
        await server?.shutdown()
        _ = await running?.result
        lock.withLock {
            self.server = nil
            self.running = nil
        }
        await waitUntilRefused()
    }

    /// Waits until a connection to the port is refused: the listening socket may close a moment after
    /// the server's run returns, and until then the kernel still queues connections for it.
    private func waitUntilRefused() async {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline, LoopbackSocket.accepts(port: port) {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The database `name` as a remote, created if missing (the server must be running).
    ///
    /// Each request has a connection of its own (`Connection: close`): a connection kept alive across
    /// ``stop()`` could still carry one request to the stopping server, which would commit it (a
    /// connection dying after the commit, which the queue handles, but which makes "the remote is away"
    /// nondeterministic in a test).
    func remote(_ name: String = "notes", timeout: Duration = .seconds(60)) async throws -> RemoteDatabase {
        let remote = try RemoteDatabase(
            url: URL(string: "\(baseURL)/\(name)")!, authentication: .basic(user: Self.admin.name, password: Self.admin.password),
            headers: ["Connection": "close"], timeout: timeout)
        try await remote.peer.createIfMissing()
        return remote
    }

    /// A device store in the test's folder, taking entity types it was not told about.
    func deviceStore(_ name: String = "device") throws -> DocumentStore {
        try DocumentStore.open(
            name: name, in: StoreDirectory(path: folder.appendingPathComponent("device").path),
            options: StoreOptions(acceptsUnregisteredEntities: true))
    }

    /// A started server with its `notes` database, and a device store: where most repository tests begin.
    static func startedWithDevice() async throws -> (server: RestartableServer, remote: RemoteDatabase, store: DocumentStore) {
        let server = RestartableServer()
        try await server.start()
        return (server, try await server.remote(), try server.deviceStore())
    }

    /// Stops the server and removes the folder.
    func finish() async {
        await stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// The entity the repository tests read and write.
struct Note: Codable, Identifiable, Sendable, Hashable, CloudantRevision {
    var id: String
    var text: String
    var revId: String?
}
