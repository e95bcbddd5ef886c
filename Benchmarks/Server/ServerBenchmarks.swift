import CloudantOnly
import CloudantServer
import Foundation

/// The HTTP endpoint against the same workload run in-process on the store, so the cost of HTTP (parsing,
/// routing, serialising, loopback TCP) shows as a ratio.
enum ServerBenchmarks {
    static func run(repetitions: Int) async throws {
        let folder = Scratch.folder("server")
        defer { Scratch.remove(folder) }
        let directory = StoreDirectory(path: folder.path)
        let admin = ServerAdmin(name: "bench", password: "bench-password")
        // Admin party isolates HTTP overhead; a second server with an admin adds the basic-auth cost.
        let open = try CouchServer(configuration: ServerConfiguration(port: 0, directory: directory))
        let openTask = Task { try await open.run() }
        let port = try await open.port()
        let secured = try CouchServer(
            configuration: ServerConfiguration(port: 0, directory: directory, admin: admin, passwordIterations: 600_000))
        let securedTask = Task { try await secured.run() }
        let securedPort = try await secured.port()
        let setup = try LoopbackClient(port: port)
        try setup.request("PUT", "/bench")
        let store = try DocumentStore.open(name: "bench", in: directory)
        let seed: [JSONValue] = (0..<1000).map { index in
            ["_id": .string(String(format: "doc-%05d", index)), "name": "patient", "age": .number(JSONNumber(index % 90))]
        }
        _ = try await store.bulkDocs(seed)
        try await documentReads(store: store, port: port, securedPort: securedPort, admin: admin, repetitions: repetitions)
        try await bulkWrites(store: store, port: port, repetitions: repetitions)
        await open.shutdown()
        await secured.shutdown()
        _ = await (openTask.result, securedTask.result)
    }

    /// Document GETs, four in flight.
    private static func documentReads(
        store: DocumentStore, port: Int, securedPort: Int, admin: ServerAdmin, repetitions: Int
    ) async throws {
        let requests = 20_000
        let connections = 4
        let perConnection = requests / connections
        let authorization = "Authorization: Basic \(Data("\(admin.name):\(admin.password)".utf8).base64EncodedString())\r\n"
        func overHTTP(port: Int, headers: String) async {
            await LoopbackClient.onThreads(connections) { lane in
                guard let client = try? LoopbackClient(port: port) else { return }
                for index in 0..<perConnection {
                    _ = try? client.request("GET", String(format: "/bench/doc-%05d", (index * connections + lane) % 1000), headers: headers)
                }
            }
        }
        try await BenchmarkGroup(
            name: "HTTP-1: document GET, \(connections) in flight", unit: "requests", operations: requests,
            baseline: .init(
                name: "in-process store.document(id:)",
                body: {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for lane in 0..<connections {
                            group.addTask {
                                for index in 0..<perConnection {
                                    _ = try await store.document(id: String(format: "doc-%05d", (index * connections + lane) % 1000))
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }),
            candidates: [
                .init(name: "GET /bench/{id} over loopback", body: { await overHTTP(port: port, headers: "") }),
                .init(name: "… with basic auth (cached PBKDF2)", body: { await overHTTP(port: securedPort, headers: authorization) }),
            ],
            target: nil
        ).run(repetitions: repetitions)
    }

    /// `_bulk_docs` of 1000 new documents, two requests in flight.
    private static func bulkWrites(store: DocumentStore, port: Int, repetitions: Int) async throws {
        let batches = 20
        let inFlight = 2
        var round = 0
        func batch(_ number: Int) -> [JSONValue] {
            (0..<1000).map { index in
                [
                    "_id": .string("r\(round)-b\(number)-\(index)"), "name": "patient", "age": .number(JSONNumber(index % 90)),
                    "notes": .string(String(repeating: "x", count: 200)),
                ]
            }
        }
        var parsed: [[JSONValue]] = []
        var bodies: [[UInt8]] = []
        let prepare: () async throws -> Void = {
            round += 1
            parsed = (0..<batches).map(batch)
            bodies = parsed.map { JSONValue.object(["docs": .array($0)]).jsonBytes() }
        }
        try await BenchmarkGroup(
            name: "HTTP-2: _bulk_docs of 1000 documents, \(inFlight) in flight", unit: "requests", operations: batches,
            baseline: .init(
                name: "in-process store.bulkDocs (parsed)", setUp: prepare,
                body: {
                    let parsed = parsed
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        for lane in 0..<inFlight {
                            group.addTask {
                                for number in stride(from: lane, to: batches, by: inFlight) {
                                    _ = try await store.bulkDocs(parsed[number])
                                }
                            }
                        }
                        try await group.waitForAll()
                    }
                }),
            candidates: [
                .init(
                    name: "POST /bench/_bulk_docs over loopback", setUp: prepare,
                    body: {
                        let bodies = bodies
                        await LoopbackClient.onThreads(inFlight) { lane in
                            guard let client = try? LoopbackClient(port: port) else { return }
                            for number in stride(from: lane, to: batches, by: inFlight) {
                                _ = try? client.request("POST", "/bench/_bulk_docs", body: bodies[number])
                            }
                        }
                    })
            ],
            target: nil
        ).run(repetitions: repetitions)
    }
}
