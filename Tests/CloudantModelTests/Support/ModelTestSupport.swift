import CloudantModel
import CloudantServer
import Foundation

/// A fresh folder for stores, removed by `remove()`.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var directory: StoreDirectory { StoreDirectory(path: url.path) }

    /// A store registered with the test models' plugins.
    func store(_ name: String) throws -> DocumentStore {
        try DocumentStore.open(
            name: name, in: directory,
            options: StoreOptions(registry: try EntityRegistry(plugins: [RecipesModel.Plugin(), SamplesModel.Plugin()])))
    }

    func models(_ name: String, model: ObjectModel = RecipesModel.objectModel) async throws -> ModelStore {
        try await ModelStore.open(try store(name), model: model)
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

enum Fixtures {
    static func url(_ path: String) throws -> URL {
        guard let base = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CloudantError(.notFound, "The Fixtures folder is not in the test bundle.")
        }
        return base.appendingPathComponent(path)
    }

    static func document(_ path: String) throws -> JSONObject {
        guard case .object(let object) = try JSONValue(parsing: try Data(contentsOf: try url(path))) else {
            throw CloudantError(.invalidValue, "\(path) is not a JSON object")
        }
        return object
    }

    static func names(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: try url(folder).path).filter { $0.hasSuffix(".json") }.sorted()
    }
}

/// A live CouchDB-compatible server on 127.0.0.1 (a free port) with an admin, in a fresh folder.
final class LiveServer: @unchecked Sendable {
    // Immutable after start.
    let folder: TemporaryFolder
    let server: CouchServer
    let running: Task<Void, any Error>
    let baseURL: String

    static let admin = ServerAdmin(name: "admin", password: "s3cret")

    private init(folder: TemporaryFolder, server: CouchServer, running: Task<Void, any Error>, baseURL: String) {
        self.folder = folder
        self.server = server
        self.running = running
        self.baseURL = baseURL
    }

    static func start() async throws -> LiveServer {
        let folder = try TemporaryFolder()
        let server = try CouchServer(
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder.url.appendingPathComponent("server").path),
                admin: admin, passwordIterations: 1_000))
        let running = Task { try await server.run() }
        return LiveServer(folder: folder, server: server, running: running, baseURL: try await server.url())
    }

    func database(_ name: String) async throws -> HTTPPeer {
        guard let url = URL(string: baseURL + "/" + name) else { throw CloudantError(.invalidValue, "bad URL") }
        let peer = try HTTPPeer(url: url, authentication: .basic(user: Self.admin.name, password: Self.admin.password))
        try await peer.createIfMissing()
        return peer
    }

    func stop() async {
        await server.shutdown()
        _ = await running.result
        folder.remove()
    }
}
