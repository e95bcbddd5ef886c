import CSQLite
import CloudantOnly
import Foundation

/// Indexed and unindexed queries, and the index costs: Cloudant Query on the store against hand-written SQL over the same data in
/// raw SQLite, in the same run.
///
/// Both sides return documents an application can use: the baseline's SQL rows are parsed with the same
/// JSON parser the store uses, so the ratio is what the query engine costs over doing it by hand.
enum QueryBenchmarks {
    /// Small health-sample documents: 10 types, `value` in 0..<10 000, so `value == v` matches
    /// `documents / 10 000` documents (100 at one million).
    static func document(_ index: Int, generator: inout SplitMix64) -> String {
        let types = ["StepCount", "HeartRate", "BodyMass", "Height", "BloodGlucose", "RespiratoryRate",
                     "OxygenSaturation", "BodyTemperature", "DistanceWalkingRunning", "ActiveEnergyBurned"]
        let id = String(format: "sample-%08d", index)
        let type = types[Int(generator.next() % 10)]
        let value = Int(generator.next() % 10_000)
        return #"{"_id":"\#(id)","type":"HKQuantityTypeIdentifier\#(type)","value":\#(value),"unit":"count/min","#
            + #""startDate":"2026-11-\#(10 + index % 10)T10:00:00.000Z","patient":"p\#(index % 500)"}"#
    }

    static func run(documents: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("query")
        defer { Scratch.remove(folder) }
        let store = try DocumentStore.open(name: "query", in: StoreDirectory(path: folder.path))
        // The same documents in a store encrypted at rest, for the cost of encryption on queries.
        var encryptedOptions = StoreOptions()
        encryptedOptions.encryptionKey = DatabaseKey.random()
        let encrypted = try DocumentStore.open(name: "query-encrypted", in: StoreDirectory(path: folder.path), options: encryptedOptions)
        // And with bodies kept as JSON text, for the cost of decompression on queries.
        var textOptions = StoreOptions()
        textOptions.compressesBodies = false
        let text = try DocumentStore.open(name: "query-text", in: StoreDirectory(path: folder.path), options: textOptions)
        let raw = try await load(documents: documents, into: [store, encrypted, text], folder: folder)
        try await encrypted.createIndex(IndexDefinition(name: "by-value", fields: [.ascending("value")]))
        try await text.createIndex(IndexDefinition(name: "by-value", fields: [.ascending("value")]))

        try await indexBuild(store: store, raw: raw, documents: documents, repetitions: repetitions)

        try await store.createIndex(IndexDefinition(name: "by-value", fields: [.ascending("value")]))
        try raw.execute("CREATE INDEX docs_by_value ON docs(value, id)")
        let queries = 200
        // Each query runs on the default store, then on the same documents kept as JSON text, then encrypted.
        let variants: [(suffix: String, candidate: DocumentStore)] = [
            ("", store), (", bodies as JSON text", text), (", encrypted store", encrypted),
        ]
        var values = SplitMix64(seed: 5)
        let probes = (0..<queries).map { _ in Int(values.next() % 10_000) }
        var returned = 0

        /// One indexed query, `sql` on raw SQLite against `selector` on each store variant, for every probe.
        func indexed(_ title: String, sql: String, find: String, selector: @escaping (Int) throws -> MangoSelector) async throws {
            try await BenchmarkGroup(
                name: title, unit: "queries", operations: queries,
                baseline: .init(
                    name: "hand-written SQL + parse rows",
                    body: { for value in probes { returned += try raw.query(sql, value) } }),
                candidates: variants.map { suffix, candidate in
                    .init(
                        name: find + suffix,
                        body: {
                            for value in probes {
                                returned += try await candidate.find(FindRequest(selector: selector(value), limit: 100)).docs.count
                            }
                        })
                },
                target: 1.5
            ).run(repetitions: repetitions)
        }
        try await indexed(
            "Indexed $eq over \(documents) documents, ~\(documents / 10_000) rows each",
            sql: "SELECT id, body FROM docs WHERE value = ?1 ORDER BY value, id LIMIT 100",
            find: "store.find {value: v}", selector: { try MangoSelector(["value": .number(JSONNumber($0))]) })
        try await indexed(
            "Indexed range over \(documents) documents, first 100 rows",
            sql: "SELECT id, body FROM docs WHERE value >= ?1 ORDER BY value, id LIMIT 100",
            find: "store.find {value: {$gte: v}}", selector: { try MangoSelector(["value": ["$gte": .number(JSONNumber($0))]]) })

        let scanType = "HKQuantityTypeIdentifierHeartRate"
        try await BenchmarkGroup(
            name: "Unindexed scan of \(documents) documents (type = HeartRate and patient = p42)",
            unit: "docs scanned", operations: documents,
            baseline: .init(
                name: "SQLite json_extract scan + parse rows",
                body: {
                    returned += try raw.query(
                        "SELECT id, body FROM docs WHERE json_extract(body, '$.type') = ?2 AND json_extract(body, '$.patient') = 'p' || ?1",
                        42, scanType)
                }),
            candidates: variants.filter { $0.candidate !== encrypted }.map { suffix, candidate in
                .init(
                    name: "store.find (no usable index)" + suffix,
                    body: {
                        returned += try await candidate.find(
                            FindRequest(selector: MangoSelector(["type": .string(scanType), "patient": "p42"]), limit: 1_000_000)
                        ).docs.count
                    })
            },
            target: 2
        ).run(repetitions: repetitions)
        if returned < 0 { print(returned) }  // Keeps the results alive.
    }

    /// Writes the benchmark's documents into each store and into raw SQLite (`raw.sqlite` in `folder`), untimed.
    private static func load(documents: Int, into stores: [DocumentStore], folder: URL) async throws -> QueryBaseline {
        print("\nSetting up \(documents) documents in the store and in raw SQLite (untimed)…")
        var generator = SplitMix64(seed: 11)
        let bodies = (0..<documents).map { document($0, generator: &generator) }
        let raw = try QueryBaseline(path: folder.appendingPathComponent("raw.sqlite").path)
        try raw.load(bodies)
        for start in stride(from: 0, to: bodies.count, by: 5_000) {
            let batch = try bodies[start..<min(start + 5_000, bodies.count)].map { try JSONValue(parsing: Array($0.utf8)) }
            for store in stores { _ = try await store.bulkDocs(batch) }
        }
        return raw
    }

    /// The index build alone (`cloudant-benchmarks index-build`): the documents loaded into a store and raw
    /// SQLite, then the build timed, without the queries.
    static func indexBuildOnly(documents: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("index-build")
        defer { Scratch.remove(folder) }
        let store = try DocumentStore.open(name: "index-build", in: StoreDirectory(path: folder.path))
        let raw = try await load(documents: documents, into: [store], folder: folder)
        try await indexBuild(store: store, raw: raw, documents: documents, repetitions: repetitions)
    }

    /// The store's JSON index against SQLite's own expression index on the same JSON.
    private static func indexBuild(store: DocumentStore, raw: QueryBaseline, documents: Int, repetitions: Int) async throws {
        try await BenchmarkGroup(
            name: "Index build over \(documents) documents", unit: "docs", operations: documents,
            baseline: .init(
                name: "raw CREATE INDEX on json_extract",
                body: { try raw.execute("CREATE INDEX by_value_expr ON docs(json_extract(body, '$.value'))") },
                tearDown: { try raw.execute("DROP INDEX by_value_expr") }),
            candidates: [
                // The store's build lets SQLite's sorter use a helper thread; the same for the baseline.
                .init(
                    name: "raw, with PRAGMA threads = 2",
                    body: { try raw.execute("PRAGMA threads = 2; CREATE INDEX by_value_expr ON docs(json_extract(body, '$.value'))") },
                    tearDown: { try raw.execute("DROP INDEX by_value_expr; PRAGMA threads = 0") }),
                .init(
                    name: "store.createIndex([value])",
                    body: { try await store.createIndex(IndexDefinition(name: "by-value", fields: [.ascending("value")])) },
                    tearDown: { try await store.deleteIndex(designDocument: "by-value", name: "by-value") })
            ]
        ).run(repetitions: max(1, repetitions / 2))
    }

    /// Write throughput with 0, 1 and 3 JSON indexes: `documents` documents in 1000-document batches.
    static func writesWithIndexes(documents: Int, repetitions: Int) async throws {
        var generator = SplitMix64(seed: 13)
        let batches = try stride(from: 0, to: documents, by: 1_000).map { start in
            try (start..<min(start + 1_000, documents)).map { try JSONValue(parsing: Array(document($0, generator: &generator).utf8)) }
        }
        var folder = Scratch.folder("writes")
        var store: DocumentStore?
        func fresh(indexes: [IndexDefinition]) async throws {
            Scratch.remove(folder)
            folder = Scratch.folder("writes")
            let opened = try DocumentStore.open(name: "writes", in: StoreDirectory(path: folder.path))
            for index in indexes { try await opened.createIndex(index) }
            store = opened
        }
        let write: () async throws -> Void = { for batch in batches { _ = try await store?.bulkDocs(batch) } }
        let byValue = IndexDefinition(name: "by-value", fields: [.ascending("value")])
        let three = [
            byValue, IndexDefinition(name: "by-type-date", fields: [.ascending("type"), .ascending("startDate")]),
            IndexDefinition(name: "by-patient", fields: [.ascending("patient")]),
        ]
        let storeMedians = try await BenchmarkGroup(
            name: "Write throughput with indexes: \(documents) documents in 1000-document batches",
            unit: "docs", operations: documents,
            baseline: .init(name: "store, no index", setUp: { try await fresh(indexes: []) }, body: write),
            candidates: [
                .init(name: "store, 1 JSON index", setUp: { try await fresh(indexes: [byValue]) }, body: write),
                .init(name: "store, 3 JSON indexes", setUp: { try await fresh(indexes: three) }, body: write),
            ]
        ).run(repetitions: repetitions)
        store = nil
        Scratch.remove(folder)

        // What three secondary indexes cost SQLite itself, for scale: random-key B-tree inserts dirty a
        // page each, whoever does them.
        var generatorRaw = SplitMix64(seed: 13)
        let bodies = (0..<documents).map { document($0, generator: &generatorRaw) }
        var raw: QueryBaseline?
        func freshRaw(indexes: Bool) throws {
            raw = nil
            Scratch.remove(folder)
            folder = Scratch.folder("writes-raw")
            let baseline = try QueryBaseline(path: folder.appendingPathComponent("raw.sqlite").path)
            if indexes {
                try baseline.execute("CREATE INDEX by_value ON docs(json_extract(body, '$.value'))")
                try baseline.execute("CREATE INDEX by_type_date ON docs(json_extract(body, '$.type'), json_extract(body, '$.startDate'))")
                try baseline.execute("CREATE INDEX by_patient ON docs(json_extract(body, '$.patient'))")
            }
            raw = baseline
        }
        let rawMedians = try await BenchmarkGroup(
            name: "For scale: raw SQLite, \(documents) rows in 1000-row transactions",
            unit: "docs", operations: documents,
            baseline: .init(name: "raw SQLite, no index", setUp: { try freshRaw(indexes: false) }, body: { try raw?.load(bodies, batchSize: 1_000) }),
            candidates: [
                .init(name: "raw SQLite, 3 json_extract indexes", setUp: { try freshRaw(indexes: true) }, body: { try raw?.load(bodies, batchSize: 1_000) })
            ]
        ).run(repetitions: repetitions)
        raw = nil
        Scratch.remove(folder)
        print(String(format: "  store with 3 JSON indexes / raw SQLite with the same 3 indexes: %.2f× (target ≤ 1.3×)", storeMedians[2] / rawMedians[1]))
    }
}

/// The hand-written side: the same documents in a plain table with the queried field as a column.
final class QueryBaseline: SQLiteBaseline {

    override init(path: String) throws {
        try super.init(path: path)
        try execute("CREATE TABLE docs (id TEXT PRIMARY KEY, body TEXT NOT NULL, value INTEGER NOT NULL)")
    }

    func load(_ bodies: [String], batchSize: Int = .max) throws {
        try insert("INSERT INTO docs (id, body, value) VALUES (?, ?, ?)", bodies, batchSize: batchSize) { statement, body in
            let json = try JSONValue(parsing: Array(body.utf8))
            sqlite3_bind_text(statement, 1, json["_id"]?.stringValue ?? "", -1, SQLITE_TRANSIENT)
            sqlite3_bind_text(statement, 2, body, -1, SQLITE_TRANSIENT)
            sqlite3_bind_int64(statement, 3, json["value"]?.numberValue?.int64Value ?? 0)
        }
    }

    /// Runs a query binding an integer as ?1 (and a text as ?2) and parses every returned body; returns
    /// the row count.
    func query(_ sql: String, _ integer: Int, _ text: String? = nil) throws -> Int {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, Int64(integer))
        if let text { sqlite3_bind_text(statement, 2, text, -1, SQLITE_TRANSIENT) }
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            let count = Int(sqlite3_column_bytes(statement, 1))
            guard let pointer = sqlite3_column_text(statement, 1) else { continue }
            _ = try JSONValue(parsing: Array(UnsafeBufferPointer(start: pointer, count: count)))
            rows += 1
        }
        return rows
    }

}
