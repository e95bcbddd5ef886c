import Foundation

/// The measurement behind the README's choice of SQLite access layer: GRDB versus a thin wrapper of
/// our own, both divided by raw SQLite in the same run.
enum SQLiteLayerBenchmarks {
    static func run(documents: Int, repetitions: Int) async throws {
        let workload = Workload(count: documents, batchSize: 1000)
        let batches = workload.batches
        let reads = workload.readOrder(count: documents)

        var folder = Scratch.folder("layer")
        func freshPath(_ name: String) -> String {
            Scratch.remove(folder)
            folder = Scratch.folder("layer")
            return folder.appendingPathComponent("\(name).sqlite").path
        }

        var raw: RawSQLite?
        var grdb: GRDBCandidate?
        var thin: ThinWrapperCandidate?
        let release = {
            raw = nil
            grdb = nil
            thin = nil
        }

        try await BenchmarkGroup(
            name: "SQLite layer: insert \(documents) × ~1 KB rows in 1000-row transactions",
            unit: "rows", operations: documents,
            baseline: .init(
                name: "raw SQLite C API", setUp: { raw = try RawSQLite(path: freshPath("raw")) },
                body: { try raw?.insert(batches) }, tearDown: release),
            candidates: [
                .init(
                    name: "GRDB DatabasePool", setUp: { grdb = try GRDBCandidate(path: freshPath("grdb")) },
                    body: { try grdb?.insert(batches) }, tearDown: release),
                .init(
                    name: "thin wrapper", setUp: { thin = try ThinWrapperCandidate(path: freshPath("thin")) },
                    body: { try thin?.insert(batches) }, tearDown: release),
            ],
            target: nil
        ).run(repetitions: repetitions)

        // One populated file, read by all three layers.
        let readPath = freshPath("read")
        try RawSQLite(path: readPath).insert(batches)
        try await BenchmarkGroup(
            name: "SQLite layer: \(documents) point reads by id",
            unit: "reads", operations: documents,
            baseline: .init(
                name: "raw SQLite C API", setUp: { raw = try RawSQLite(path: readPath) },
                body: { _ = try raw?.read(reads) }, tearDown: release),
            candidates: [
                .init(
                    name: "GRDB DatabasePool", setUp: { grdb = try GRDBCandidate(path: readPath) },
                    body: { _ = try grdb?.read(reads) }, tearDown: release),
                .init(
                    name: "thin wrapper", setUp: { thin = try ThinWrapperCandidate(path: readPath) },
                    body: { _ = try thin?.read(reads) }, tearDown: release),
            ],
            target: nil
        ).run(repetitions: repetitions)
        Scratch.remove(folder)
    }
}
