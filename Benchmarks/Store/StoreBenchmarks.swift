import CloudantOnly
import Foundation

/// Bulk inserts and single writes: the document store against raw SQLite writing equivalent rows in the same run.
enum StoreBenchmarks {
    /// Bulk insert: `documents` documents of ~1 KB in 1000-document `_bulk_docs` batches.
    static func bulkInsert(documents: Int, repetitions: Int) async throws {
        let workload = Workload(count: documents, batchSize: 1000)
        let batches = workload.batches
        let parsedBatches = try batches.map { batch in try batch.map { try JSONValue(parsing: $0.body) } }

        let scratch = ScratchFolder("bulk-insert")
        defer { scratch.remove() }
        let raw = RawSQLiteCases(writing: batches, in: scratch)
        var store: DocumentStore?
        let release: () async throws -> Void = { store = nil }
        /// Opens a fresh store with `options` before each repetition.
        func opening(_ options: StoreOptions = StoreOptions()) -> () async throws -> Void {
            { store = try DocumentStore.open(name: "bulk-insert", in: StoreDirectory(path: scratch.fresh().path), options: options) }
        }
        let insertParsed: () async throws -> Void = { for batch in parsedBatches { _ = try await store?.bulkDocs(batch) } }
        var textOptions = StoreOptions()
        textOptions.compressesBodies = false
        var encryptedOptions = StoreOptions()
        encryptedOptions.encryptionKey = DatabaseKey.random()
        try await BenchmarkGroup(
            name: "Bulk insert: \(documents) × ~1 KB documents in 1000-document batches",
            unit: "docs", operations: documents,
            baseline: raw.baseline(named: "raw SQLite (id, rev, body, seq)"),
            candidates: raw.floors + [
                .init(name: "store.bulkDocs (parsed JSON in)", setUp: opening(), body: insertParsed, tearDown: release),
                .init(
                    name: "store.bulkDocs, bodies as JSON text (StoreOptions.compressesBodies = false)",
                    setUp: opening(textOptions), body: insertParsed, tearDown: release),
                .init(
                    name: "store.bulkDocs, encrypted store (StoreOptions.encryptionKey)",
                    setUp: opening(encryptedOptions), body: insertParsed, tearDown: release),
                .init(
                    name: "store.bulkDocs, 2 batches in flight",
                    setUp: opening(),
                    body: {
                        // Batch N+1 mints its revisions while batch N holds the writer.
                        guard let target = store else { return }
                        var pending: Task<[BulkDocsResult], any Error>?
                        for batch in parsedBatches {
                            let next = Task { try await target.bulkDocs(batch) }
                            _ = try await pending?.value
                            pending = next
                        }
                        _ = try await pending?.value
                    }, tearDown: release),
                .init(
                    name: "parse + store.bulkDocs (bytes in)",
                    setUp: opening(),
                    body: {
                        for batch in batches {
                            _ = try await store?.bulkDocs(try batch.map { try JSONValue(parsing: $0.body) })
                        }
                    }, tearDown: release),
            ],
            target: 1.3
        ).run(repetitions: repetitions)
        try await bulkCommand(workload: workload, repetitions: repetitions)
    }

    /// `cloudant bulk` of the same documents as a JSON Lines file, in a process of its own (start-up, reading
    /// and parsing the file and printing each batch's results included), against the same raw SQLite baseline:
    /// the CLI's target is 1.5×. Skipped when the `cloudant` product was not built beside this executable.
    private static func bulkCommand(workload: Workload, repetitions: Int) async throws {
        guard let cloudant = cloudantExecutable() else { return }
        var lines = [UInt8]()
        for row in workload.rows { lines += row.body + [UInt8(ascii: "\n")] }
        let inputFolder = Scratch.folder("bulk-insert-input")
        defer { Scratch.remove(inputFolder) }
        let input = inputFolder.appendingPathComponent("documents.jsonl")
        try Data(lines).write(to: input)
        let scratch = ScratchFolder("bulk-command")
        defer { scratch.remove() }
        try await BenchmarkGroup(
            name: "Bulk insert: \(workload.rows.count) × ~1 KB documents in 1000-document batches",
            unit: "docs", operations: workload.rows.count,
            baseline: RawSQLiteCases(writing: workload.batches, in: scratch).baseline(named: "raw SQLite (id, rev, body, seq)"),
            candidates: [
                .init(
                    name: "cloudant bulk of the same documents as a JSON Lines file (a process of its own)",
                    setUp: { scratch.fresh() },
                    body: {
                        let outcome = try MeasuredProcess(
                            executable: cloudant, arguments: ["--data", scratch.current.path, "bulk", "--db", "bulk", input.path],
                            outputPath: "/dev/null"
                        ).run()
                        guard outcome.exitStatus == 0 else { throw BenchmarkFailure("cloudant bulk exited with \(outcome.exitStatus)") }
                    })
            ],
            target: 1.5
        ).run(repetitions: repetitions)
    }

    /// The `cloudant` executable built beside this one (the same configuration), or nil when it was not built.
    static func cloudantExecutable() -> String? {
        let path = URL(fileURLWithPath: MeasuredProcess.currentExecutable).deletingLastPathComponent().appendingPathComponent("cloudant").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            print("(the cloudant bulk row is skipped: build the `cloudant` product in the same configuration)")
            return nil
        }
        return path
    }

    /// Single writes: `documents` single-document writes, each in its own transaction.
    static func singleWrites(documents: Int, repetitions: Int) async throws {
        let workload = Workload(count: documents, batchSize: 1)
        let rows = workload.rows
        let parsed = try rows.map { row -> JSONObject in
            guard case .object(let object) = try JSONValue(parsing: row.body) else { throw BenchmarkError.unexpected("body") }
            return object
        }
        let scratch = ScratchFolder("single-writes")
        defer { scratch.remove() }
        let raw = RawSQLiteCases(writing: workload.batches, in: scratch)
        var store: DocumentStore?
        try await BenchmarkGroup(
            name: "Single writes: \(documents) single-document writes, one transaction each",
            unit: "writes", operations: documents,
            baseline: raw.baseline(named: "raw SQLite (one row per transaction)"),
            candidates: raw.floors + [
                .init(
                    name: "store.put",
                    setUp: { store = try DocumentStore.open(name: "single-writes", in: StoreDirectory(path: scratch.fresh().path)) },
                    body: {
                        // The loop runs where `put` runs (the global executor), as in a server or a
                        // background task; a caller on the main actor would add a hop per call.
                        guard let target = store else { return }
                        try await Task.detached {
                            for document in parsed { _ = try await target.put(document) }
                        }.value
                    }, tearDown: { store = nil })
            ],
            target: 1.2
        ).run(repetitions: repetitions)
    }
}
