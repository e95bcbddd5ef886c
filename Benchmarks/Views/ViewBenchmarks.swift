import CSQLite
import CloudantJavaScript
import CloudantOnly
import Foundation

/// Views (`cloudant-benchmarks views`), each against a baseline measured in the same run:
///
/// - a view with a one-line JavaScript map built over `documents` documents, against its floor: reading the
///   same bodies from raw SQLite, plus running the same function over them in the engine alone, plus inserting
///   the rows it emits into a raw SQLite table of the same shape;
/// - the same view with a Swift map closure, against a JSON index build over the same field;
/// - a `group_level` reduce query over the view's rows, against the equivalent SQL `GROUP BY`, and what keeping
///   the reduce's stored blocks adds to the view's updates after scattered edits;
/// - the peak memory of `cloudant view` building the JavaScript view over the documents (a process of its own).
enum ViewBenchmarks {
    static let map = "function (doc) { emit(doc.value, null); }"

    /// The benchmarks of the area, each also run alone by its name.
    enum Part: String, CaseIterable {
        case javaScriptBuild = "view-build-js"
        case swiftBuild = "view-build-swift"
        case groupLevel = "group-level"
        case peakMemory = "view-memory"
    }

    static func run(documents: Int, repetitions: Int, parts: Set<Part> = Set(Part.allCases)) async throws {
        let folder = Scratch.folder("views")
        defer { Scratch.remove(folder) }
        var options = StoreOptions()
        let engine = JavaScriptEngine()
        options.designFunctions = engine
        let store = try DocumentStore.open(name: "views", in: StoreDirectory(path: folder.path), options: options)
        print("\nSetting up \(documents) documents in the store and in raw SQLite (untimed)…")
        var generator = SplitMix64(seed: 11)
        let bodies = (0..<documents).map { QueryBenchmarks.document($0, generator: &generator) }
        let raw = try QueryBaseline(path: folder.appendingPathComponent("raw.sqlite").path)
        try raw.load(bodies)
        for start in stride(from: 0, to: bodies.count, by: 5_000) {
            let batch = try bodies[start..<min(start + 5_000, bodies.count)].map { try JSONValue(parsing: Array($0.utf8)) }
            _ = try await store.bulkDocs(batch)
        }
        if parts.contains(.javaScriptBuild) {
            let stored = try await storedDocuments(store)
            try await javaScriptBuild(store: store, engine: engine, raw: raw, stored: stored, repetitions: repetitions)
        }
        if parts.contains(.swiftBuild) { try await swiftBuild(store: store, documents: documents, repetitions: repetitions) }
        if parts.contains(.groupLevel) {
            try await groupLevelQuery(store: store, raw: raw, documents: documents, repetitions: repetitions)
            try await incrementalUpdate(store: store, documents: documents, repetitions: repetitions)
        }
        try store.close()
        if parts.contains(.peakMemory) { try peakMemory(folder: folder, documents: documents) }
    }

    /// The documents as the store hands them to map functions (`_id`, `_rev`, the body), for the engine alone.
    private static func storedDocuments(_ store: DocumentStore) async throws -> [[UInt8]] {
        var documents: [[UInt8]] = []
        var options = AllDocsOptions(limit: 10_000, includeDocs: true)
        while true {
            let page = try await store.allDocs(options)
            for row in page.rows { if let document = row["doc"] { documents.append(document.jsonBytes()) } }
            guard page.rows.count == 10_000, let last = page.rows.last?["id"]?.stringValue else { break }
            options.startKey = last
            options.skip = 1
        }
        return documents
    }

    /// A fresh design document per run, so each run builds its index from nothing.
    private static func designDocument(_ run: Int, reduce: String? = nil) -> JSONObject {
        var view: JSONObject = ["map": .string(map + " // run \(run)")]
        if let reduce { view["reduce"] = .string(reduce) }
        return ["_id": .string("_design/bench\(run)"), "views": ["by_value": .object(view)]]
    }

    private static func javaScriptBuild(
        store: DocumentStore, engine: JavaScriptEngine, raw: QueryBaseline, stored: [[UInt8]], repetitions: Int
    ) async throws {
        // The rows the function emits, for the floor's insert (worked out once, untimed).
        let rows: [(key: String, id: String)] = stored.compactMap { bytes in
            guard case .object(let document)? = try? JSONValue(parsing: bytes), let id = document["_id"]?.stringValue else { return nil }
            return ((document["value"] ?? .null).jsonString(), id)
        }
        try raw.execute(
            "CREATE TABLE IF NOT EXISTS view_rows (key TEXT NOT NULL, doc_id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (key, doc_id)) WITHOUT ROWID;"
                + "CREATE INDEX IF NOT EXISTS view_rows_by_doc ON view_rows(doc_id)")
        var run = 0
        try await BenchmarkGroup(
            name: "JavaScript view build over \(stored.count) documents (`emit(doc.value, null)`)", unit: "docs",
            operations: stored.count,
            baseline: .init(
                name: "floor: read + engine alone + raw insert",
                body: {
                    _ = try raw.readBodies()
                    _ = try engine.mapText(MapFunctionSet(sources: [map]), documents: stored)
                    try raw.insertRows(rows)
                },
                tearDown: { try raw.execute("DELETE FROM view_rows") }),
            candidates: [
                .init(
                    name: "store.updateViewIndex (JavaScript)",
                    setUp: {
                        run += 1
                        try await store.put(designDocument(run))
                    },
                    body: { try await store.updateViewIndex(designDocument: "bench\(run)") },
                    tearDown: {
                        let current = try await store.document(id: "_design/bench\(run)")
                        try await store.delete(id: "_design/bench\(run)", rev: current["_rev"]?.stringValue ?? "")
                        try await store.cleanupViewIndexes()
                    })
            ],
            target: 2
        ).run(repetitions: max(1, repetitions / 2))
    }

    private static func swiftBuild(store: DocumentStore, documents: Int, repetitions: Int) async throws {
        var version = 0
        try await BenchmarkGroup(
            name: "Swift view build over \(documents) documents against a JSON index on the same field", unit: "docs",
            operations: documents,
            baseline: .init(
                name: "store.createIndex([value])",
                body: { try await store.createIndex(IndexDefinition(name: "by-value", fields: [.ascending("value")])) },
                tearDown: { try await store.deleteIndex(designDocument: "by-value", name: "by-value") }),
            candidates: [
                .init(
                    name: "store.updateViewIndex (Swift map)",
                    setUp: { version += 1 },
                    body: {
                        let view = SwiftView(name: "by-value", version: version) { document, emit in emit(document["value"] ?? .null, .null) }
                        try await store.updateViewIndex(view)
                    },
                    tearDown: { try await store.cleanupViewIndexes() }),
                // How long the store's writers wait for the build: one writer puts a new document at a time
                // while the view is built, and the longest put is printed.
                .init(
                    name: "the same while one writer puts documents",
                    setUp: { version += 1 },
                    body: {
                        let view = SwiftView(name: "by-value", version: version) { document, emit in emit(document["value"] ?? .null, .null) }
                        let run = version
                        let writer = Task { () -> (longest: Duration, writes: Int, failures: Int) in
                            var longest = Duration.zero
                            var (writes, failures) = (0, 0)
                            while !Task.isCancelled {
                                let start = ContinuousClock.now
                                do {
                                    try await store.put(["_id": .string("probe-\(run)-\(writes)"), "value": .number(JSONNumber(writes))])
                                } catch {
                                    failures += 1
                                }
                                longest = max(longest, ContinuousClock.now - start)
                                writes += 1
                            }
                            return (longest, writes, failures)
                        }
                        try await store.updateViewIndex(view)
                        writer.cancel()
                        let probe = await writer.value
                        print("    longest of \(probe.writes) puts during the build: \(probe.longest), \(probe.failures) failed")
                    },
                    tearDown: { try await store.cleanupViewIndexes() }),
            ],
            target: 1.3
        ).run(repetitions: max(1, repetitions / 2))
    }

    private static func groupLevelQuery(store: DocumentStore, raw: QueryBaseline, documents: Int, repetitions: Int) async throws {
        try await store.put([
            "_id": "_design/grouped",
            "views": ["by_type": ["map": "function (doc) { emit([doc.type, doc.patient], doc.value); }", "reduce": "_sum"]],
        ])
        try await store.updateViewIndex(designDocument: "grouped")
        // The same view with a JavaScript reduce, whose blocks keep the function's results.
        try await store.put([
            "_id": "_design/grouped_js",
            "views": [
                "by_type": [
                    "map": "function (doc) { emit([doc.type, doc.patient], doc.value); }",
                    "reduce": "function (keys, values, rereduce) { return sum(values); }",
                ]
            ],
        ])
        try await store.updateViewIndex(designDocument: "grouped_js")
        // The same map with the built-ins whose blocks keep a sketch, ranked values or a row.
        let map = "function (doc) { emit([doc.type, doc.patient], doc.value); }"
        try await store.put([
            "_id": "_design/grouped_more",
            "views": [
                "top": ["map": .string(map), "reduce": "_top_3"],
                "distinct": ["map": .string(map), "reduce": "_approx_count_distinct"],
            ],
        ])
        try await store.updateViewIndex(designDocument: "grouped_more")
        try raw.execute(
            "CREATE TABLE grouped (k1 TEXT NOT NULL, k2 TEXT NOT NULL, doc_id TEXT NOT NULL, value INTEGER NOT NULL, PRIMARY KEY (k1, k2, doc_id)) WITHOUT ROWID;"
                + "INSERT INTO grouped SELECT json_extract(body, '$.type'), json_extract(body, '$.patient'), id, value FROM docs")
        var query = ViewQuery()
        query.groupLevel = 1
        var groups = 0
        func grouped(_ name: String, view: String, descending: Bool) -> BenchmarkGroup.Case {
            var grouped = query
            grouped.descending = descending
            return .init(name: name, body: {
                let answer = try await store.queryView(designDocument: "grouped_more", view: view, query: grouped)
                precondition(answer.rows.count == groups, "the view has \(answer.rows.count) groups, SQL \(groups)")
            })
        }
        try await BenchmarkGroup(
            name: "group_level=1 _sum over \(documents) view rows against SQL GROUP BY", unit: "rows", operations: documents,
            baseline: .init(name: "raw SELECT k1, SUM(value) … GROUP BY k1", body: { groups = try raw.groupBySum() }),
            candidates: [
                .init(name: "store.queryView(group_level: 1)", body: {
                    let answer = try await store.queryView(designDocument: "grouped", view: "by_type", query: query)
                    precondition(answer.rows.count == groups, "the view has \(answer.rows.count) groups, SQL \(groups)")
                }),
                .init(name: "the same with a JavaScript reduce (sum(values))", body: {
                    let answer = try await store.queryView(designDocument: "grouped_js", view: "by_type", query: query)
                    precondition(answer.rows.count == groups, "the view has \(answer.rows.count) groups, SQL \(groups)")
                }),
                grouped("the same with _top_3 (its blocks' ranked values)", view: "top", descending: false),
                grouped("the same with _top_3, descending (its blocks read backwards)", view: "top", descending: true),
                grouped("the same with _approx_count_distinct (its blocks' sketches)", view: "distinct", descending: false),
            ],
            target: 2
        ).run(repetitions: repetitions)
    }

    /// What keeping the reduce's stored blocks costs a view's update: after 1,000 documents scattered over the
    /// view change, bringing the `_sum` view up to date against bringing the same map without a reduce up to
    /// date. Each case's set-up changes its own documents and brings the other view up to date untimed, so
    /// each timed update reads the same number of changes.
    private static func incrementalUpdate(store: DocumentStore, documents: Int, repetitions: Int) async throws {
        let map = "function (doc) { emit([doc.type, doc.patient], doc.value); }"
        try await store.put(["_id": "_design/grouped_rows", "views": ["by_type": ["map": .string(map)]]])
        try await store.updateViewIndex(designDocument: "grouped")
        try await store.updateViewIndex(designDocument: "grouped_rows")
        var generator = SplitMix64(seed: 23)
        let edited = 1_000
        func edit() async throws {
            var batch: [JSONValue] = []
            for _ in 0..<edited {
                let id = String(format: "sample-%08d", Int(generator.next() % UInt64(documents)))
                guard batch.allSatisfy({ $0["_id"]?.stringValue != id }) else { continue }
                var document = try await store.document(id: id)
                document["value"] = .number(JSONNumber(Int(generator.next() % 10_000)))
                batch.append(.object(document))
            }
            _ = try await store.bulkDocs(batch)
        }
        // Edits, brings the other view up to date untimed, then times this one's update.
        func updating(_ view: String, named name: String, other: String) -> BenchmarkGroup.Case {
            .init(
                name: name,
                setUp: {
                    try await edit()
                    try await store.updateViewIndex(designDocument: other)
                },
                body: { try await store.updateViewIndex(designDocument: view) })
        }
        let title = "view update after \(edited) scattered edits over \(documents) rows, with _sum's stored blocks against without a reduce"
        try await BenchmarkGroup(
            name: title, unit: "documents", operations: edited,
            baseline: updating("grouped_rows", named: "the same map without a reduce", other: "grouped"),
            candidates: [updating("grouped", named: "the _sum view, its blocks kept", other: "grouped_rows")]
        ).run(repetitions: repetitions)
    }

    /// `cloudant view` builds the JavaScript view over the documents in a process of its own; its peak
    /// resident memory (the kernel's `ru_maxrss`) is the target's figure.
    private static func peakMemory(folder: URL, documents: Int) throws {
        let executable = URL(fileURLWithPath: MeasuredProcess.currentExecutable).deletingLastPathComponent().appendingPathComponent("cloudant").path
        guard FileManager.default.fileExists(atPath: executable) else {
            print("\n(peak memory skipped: build the `cloudant` product in the same configuration)")
            return
        }
        let data = folder.path
        let ddoc = JSONValue.object(designDocument(9_999)).jsonString()
        _ = try MeasuredProcess(executable: executable, arguments: ["--data", data, "put", "--db", "views", ddoc]).run()
        let outcome = try MeasuredProcess(
            executable: executable, arguments: ["--data", data, "view", "--db", "views", "bench9999/by_value", "--limit", "1"]
        ).run()
        print(String(format: "\nPeak memory of `cloudant view` building the JavaScript view over %d documents: %.1f MB (target < 100 MB), %.1f s",
                     documents, Double(outcome.peakResidentBytes) / 1_048_576, outcome.seconds))
    }
}

extension QueryBaseline {
    /// Every body, read as the floor reads them.
    func readBodies() throws -> Int {
        let statement = try prepare("SELECT id, body FROM docs")
        defer { sqlite3_finalize(statement) }
        var bytes = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            bytes += Int(sqlite3_column_bytes(statement, 1))
            _ = sqlite3_column_text(statement, 1)
        }
        return bytes
    }

    /// The emitted rows inserted in document order, in one transaction.
    func insertRows(_ rows: [(key: String, id: String)]) throws {
        try insert("INSERT INTO view_rows (key, doc_id, value) VALUES (?, ?, 'null')", rows) { statement, row in
            sqlite3_bind_text(statement, 1, row.key, -1, SQLITE_TRANSIENT)
            sqlite3_bind_text(statement, 2, row.id, -1, SQLITE_TRANSIENT)
        }
    }

    /// `SELECT k1, SUM(value) FROM grouped GROUP BY k1`; returns the number of groups.
    func groupBySum() throws -> Int {
        let statement = try prepare("SELECT k1, SUM(value) FROM grouped GROUP BY k1")
        defer { sqlite3_finalize(statement) }
        var groups = 0
        while sqlite3_step(statement) == SQLITE_ROW { groups += 1 }
        return groups
    }
}
