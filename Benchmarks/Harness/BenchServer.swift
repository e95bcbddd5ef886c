import CloudantOnly
import CloudantServer
import Foundation

/// A `CouchServer` on 127.0.0.1 (a free port) serving `directory`, with one admin, for benchmarks that go
/// over HTTP.
struct BenchServer {
    let server: CouchServer
    let serving: Task<Void, any Error>
    /// `http://127.0.0.1:<port>`.
    let base: String

    static let credentials = RemoteAuthentication.basic(user: "bench", password: "bench")

    /// The admin's `Authorization` header line, for ``LoopbackClient`` requests.
    static let authorization = "Authorization: Basic \(Data("bench:bench".utf8).base64EncodedString())\r\n"

    /// Starts the server; `configure` adjusts its configuration first (dashboard panels, say).
    static func start(
        serving directory: StoreDirectory, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> BenchServer {
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, directory: directory, admin: ServerAdmin(name: "bench", password: "bench"),
            passwordIterations: 1_000)
        configure(&configuration)
        let server = try CouchServer(configuration: configuration)
        let serving = Task { try await server.run() }
        return BenchServer(server: server, serving: serving, base: try await server.url())
    }

    /// A graceful shutdown, waited for (cancelling the task instead makes Hummingbird log errors).
    func stop() async {
        await server.shutdown()
        _ = await serving.result
    }
}
