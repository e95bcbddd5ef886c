import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import Foundation

/// A fresh temporary folder for a test's stores, deleted when the value goes away (runs leave nothing in /tmp).
final class SeedFolder: Sendable {
    let path: String

    init(_ label: String = "seed") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A drop-in store in this folder.
    func store(_ name: String = "seed", timeout: Duration? = nil) throws -> OTFCloudantStore {
        try OTFCloudantStore(storeName: name, directory: path, timeout: timeout)
    }
}

/// A real `cloudant serve` endpoint (CouchServer) on 127.0.0.1 at a free port, on its own folder.
final class SeedServer: Sendable {
    static let admin = ServerAdmin(name: "admin", password: "s3cret")
    /// How a client logs in as the server's admin.
    static let credentials = RemoteAuthentication.basic(user: "admin", password: "s3cret")

    let server: CouchServer
    let baseURL: String
    let folder: SeedFolder
    private let running: Task<Void, any Error>

    private init(server: CouchServer, baseURL: String, folder: SeedFolder, running: Task<Void, any Error>) {
        self.server = server
        self.baseURL = baseURL
        self.folder = folder
        self.running = running
    }

    static func start() async throws -> SeedServer {
        let folder = SeedFolder("seed-server")
        let server = try CouchServer(
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder.path), admin: admin,
                passwordIterations: 1_000))
        let running = Task { try await server.run() }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            running.cancel()
        }
        let url = try await server.url()
        watchdog.cancel()
        return SeedServer(server: server, baseURL: url, folder: folder, running: running)
    }

    /// The URL of database `name` on this server.
    func database(_ name: String) -> URL {
        URL(string: baseURL + "/" + name) ?? URL(fileURLWithPath: "/")
    }

    func stop() async {
        await server.shutdown()
        _ = await running.result
    }
}

/// The documents of `Tests/Fixtures/OTFDocuments` (see its README): what the original OTFCloudantStore wrote,
/// built by hand from its source, and what a reader must recover from each.
enum OTFFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/OTFDocuments")

    static func documents() throws -> [JSONObject] {
        let data = try Data(contentsOf: folder.appendingPathComponent("documents.json"))
        return try JSONValue(parsing: data)["docs"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    static func expected() throws -> JSONObject {
        let data = try Data(contentsOf: folder.appendingPathComponent("expected.json"))
        return try JSONValue(parsing: data).objectValue ?? JSONObject()
    }
}
