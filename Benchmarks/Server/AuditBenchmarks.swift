import CloudantOnly
import CloudantServer
import Foundation

/// What the audit trail costs a server that answers document GETs: the same requests against a server
/// without the trail (the baseline) and one that records every request, in the same run.
enum AuditBenchmarks {
    static func run(repetitions: Int) async throws {
        let folder = Scratch.folder("audit")
        defer { Scratch.remove(folder) }
        let directory = StoreDirectory(path: folder.appendingPathComponent("data").path)
        let admin = ServerAdmin(name: "bench", password: "bench-password")
        var plainConfiguration = ServerConfiguration(port: 0, directory: directory, admin: admin, passwordIterations: 1_000)
        plainConfiguration.uuid = "audit-bench"
        var auditedConfiguration = plainConfiguration
        auditedConfiguration.audit = AuditSettings(folder: folder.appendingPathComponent("audit").path)
        let plain = try CouchServer(configuration: plainConfiguration)
        let audited = try CouchServer(configuration: auditedConfiguration)
        let plainTask = Task { try await plain.run() }
        let auditedTask = Task { try await audited.run() }
        let (plainPort, auditedPort) = (try await plain.port(), try await audited.port())
        let authorization = "Authorization: Basic \(Data("\(admin.name):\(admin.password)".utf8).base64EncodedString())\r\n"
        let setup = try LoopbackClient(port: plainPort)
        _ = try setup.request("PUT", "/bench", headers: authorization)
        let store = try DocumentStore.open(name: "bench", in: directory)
        _ = try await store.bulkDocs((0..<1000).map { index in
            ["_id": .string(String(format: "doc-%05d", index)), "name": "patient", "age": .number(JSONNumber(index % 90))]
        })

        let requests = 20_000
        let connections = 4
        let perConnection = requests / connections
        func reads(port: Int) async {
            await LoopbackClient.onThreads(connections) { lane in
                guard let client = try? LoopbackClient(port: port) else { return }
                for index in 0..<perConnection {
                    _ = try? client.request(
                        "GET", String(format: "/bench/doc-%05d", (index * connections + lane) % 1000), headers: authorization)
                }
            }
        }
        try await BenchmarkGroup(
            name: "AUDIT: document GET with basic auth, \(connections) in flight", unit: "requests", operations: requests,
            baseline: .init(name: "server without an audit trail", body: { await reads(port: plainPort) }),
            candidates: [.init(name: "server recording every request (hash-chained, group-committed)", body: { await reads(port: auditedPort) })],
            target: 1.10
        ).run(repetitions: repetitions)
        await plain.shutdown()
        await audited.shutdown()
        _ = await (plainTask.result, auditedTask.result)
    }
}
