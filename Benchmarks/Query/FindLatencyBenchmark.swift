import CSQLite
import CloudantOnly
import Foundation

/// The fixed cost of one `find`: many short indexed queries that each return one document, against the same
/// lookup by hand in raw SQLite (a prepared statement on an expression index, each body parsed with the
/// store's parser), in the same run. What a care app pays per task and an HTTP `_find` per request.
enum FindLatencyBenchmark {
    static func run(documents: Int, repetitions: Int) async throws {
        let lookups = 20_000
        print("\nSetting up \(documents) documents in the store and in raw SQLite (untimed)…")
        let folder = Scratch.folder("find-latency")
        defer { Scratch.remove(folder) }
        let bodies = (0..<documents).map { index in
            #"{"_id":"doc-\#(index)","n":\#(index),"type":"reading","value":\#(index % 977),"unit":"mg/dL"}"#
        }
        let raw = try LookupBaseline(path: folder.appendingPathComponent("raw.sqlite").path, bodies: bodies)
        let store = try DocumentStore.open(name: "find-latency", in: StoreDirectory(path: folder.path))
        for start in stride(from: 0, to: bodies.count, by: 5_000) {
            _ = try await store.bulkDocs(bodies[start..<min(start + 5_000, bodies.count)].map { try JSONValue(parsing: $0) })
        }
        try await store.createIndex(IndexDefinition(name: "by-n", fields: [.ascending("n")]))
        var generator = SplitMix64(seed: 3)
        let probes = (0..<lookups).map { _ in Int(generator.next() % UInt64(documents)) }
        var found = 0
        try await BenchmarkGroup(
            name: "One-document find, \(lookups) lookups among \(documents) documents", unit: "finds", operations: lookups,
            baseline: .init(name: "raw SQLite: prepared statement + parse", body: { found += try raw.lookup(probes) }),
            candidates: [
                .init(
                    name: "store.find({n: v})",
                    body: {
                        for probe in probes {
                            found += try await store.find(FindRequest(selector: MangoSelector(["n": .number(JSONNumber(probe))]))).docs.count
                        }
                    })
            ]
        ).run(repetitions: repetitions)
        if found < 0 { print(found) }  // Keeps the results alive.
    }
}

/// The documents in a plain table with an index on `json_extract(body, '$.n')`.
private final class LookupBaseline: SQLiteBaseline {
    init(path: String, bodies: [String]) throws {
        try super.init(path: path)
        try execute("CREATE TABLE docs (id TEXT PRIMARY KEY, body TEXT NOT NULL)")
        try insert("INSERT INTO docs (id, body) VALUES (?, ?)", bodies.enumerated()) { statement, row in
            sqlite3_bind_text(statement, 1, "doc-\(row.offset)", -1, SQLITE_TRANSIENT)
            sqlite3_bind_text(statement, 2, row.element, -1, SQLITE_TRANSIENT)
        }
        try execute("CREATE INDEX docs_by_n ON docs(json_extract(body, '$.n'))")
    }

    /// Looks up each value and parses the body found; returns how many were found.
    func lookup(_ values: [Int]) throws -> Int {
        let statement = try prepare("SELECT body FROM docs WHERE json_extract(body, '$.n') = ?")
        defer { sqlite3_finalize(statement) }
        var found = 0
        for value in values {
            sqlite3_bind_int64(statement, 1, Int64(value))
            while sqlite3_step(statement) == SQLITE_ROW {
                let bytes = UnsafeBufferPointer(
                    start: sqlite3_column_text(statement, 0), count: Int(sqlite3_column_bytes(statement, 0)))
                if case .object = try JSONValue(parsing: bytes) { found += 1 }
            }
            sqlite3_reset(statement)
        }
        return found
    }
}
