import CloudantOnly
import Foundation

/// P5 between two stores in one process: the replicator against the least any copy must do, writing the
/// same revisions into a fresh store with `bulkDocs(newEdits: false)`, in the same run.
enum SyncBenchmarks {
    static func localPull(documents: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("sync")
        defer { Scratch.remove(folder) }
        let source = try DocumentStore.open(name: "source", in: StoreDirectory(path: folder.path))
        var generator = SplitMix64(seed: 17)
        for start in stride(from: 0, to: documents, by: 5_000) {
            let batch: [JSONValue] = (start..<min(start + 5_000, documents)).map { index in
                ["_id": .string(String(format: "doc-%07d", index)), "type": "HKQuantitySample",
                 "value": .number(JSONNumber(Int(generator.next() % 200))), "unit": "count/min"]
            }
            _ = try await source.bulkDocs(batch)
        }
        // The baseline's input: every document with its history, as a replicator would have fetched it.
        let fetched = try await source.bulkGet(
            (try await source.allDocs()).rows.compactMap { $0["id"]?.stringValue }.map { BulkGetRequest(id: $0) })
        let revisions: [JSONValue] = fetched.flatMap { $0.docs }.compactMap { if case .ok(let doc) = $0 { .object(doc) } else { nil } }

        var target: DocumentStore?
        var round = 0
        func fresh() throws {
            round += 1
            target = try DocumentStore.open(name: "target-\(round)", in: StoreDirectory(path: folder.path))
        }
        try await BenchmarkGroup(
            name: "P5 (local): replicate \(documents) small documents between two stores",
            unit: "docs", operations: documents,
            baseline: .init(
                name: "bulkDocs(newEdits: false) of the same revisions",
                setUp: { try fresh() },
                body: {
                    for start in stride(from: 0, to: revisions.count, by: 1_000) {
                        _ = try await target?.bulkDocs(Array(revisions[start..<min(start + 1_000, revisions.count)]), newEdits: false)
                    }
                }),
            candidates: [
                .init(
                    name: "Replicator(LocalPeer → LocalPeer)",
                    setUp: { try fresh() },
                    body: {
                        guard let target else { return }
                        _ = try await Replicator(source: LocalPeer(source), target: LocalPeer(target)).run()
                    })
            ]
        ).run(repetitions: repetitions)
        print("  target: ≤ 5 s between two of our stores (issue 6, P5)")
    }
}
