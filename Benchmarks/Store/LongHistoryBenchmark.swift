import CloudantOnly
import Foundation

/// Updates of documents whose histories are long. A store keeps a document's revision tree as one value, read
/// and written whole by every update (as CouchDB reads and writes its key tree), so an update's cost grows
/// with the history it carries, up to the database's `_revs_limit` (1 000), past which each update also stems
/// the oldest revision.
///
/// Baseline: the same updates of documents written once. The candidates carry 100 and 1 000 revisions of
/// history (loaded with `new_edits=false` before the clock starts); the ratios are what the history costs.
enum LongHistoryBenchmark {
    static func run(documents: Int = 100, rounds: Int = 10, repetitions: Int) async throws {
        let scratch = ScratchFolder("long-history")
        defer { scratch.remove() }
        var store: DocumentStore?
        var leaves: [String: String] = [:]
        /// A fresh store whose documents each have a linear history of `length` revisions.
        func histories(_ length: Int) -> () async throws -> Void {
            {
                try? store?.close()
                let opened = try DocumentStore.open(name: "history", in: StoreDirectory(path: scratch.fresh().path))
                store = opened
                leaves = [:]
                let seeded: [JSONValue] = (0..<documents).map { index in
                    // Newest first, as `_revisions` lists them.
                    let hashes = (0..<length).map { String(format: "%032x", index * 1_000_000 + length - $0) }
                    leaves["doc-\(index)"] = "\(length)-\(hashes[0])"
                    return [
                        "_id": .string("doc-\(index)"), "_rev": .string("\(length)-\(hashes[0])"),
                        "_revisions": ["start": .number(JSONNumber(length)), "ids": .array(hashes.map(JSONValue.string))],
                        "n": 0,
                    ]
                }
                for result in try await opened.bulkDocs(seeded, newEdits: false) {
                    guard case .ok = result else { throw BenchmarkError.unexpected("a seeded history was refused: \(result)") }
                }
            }
        }
        let update: () async throws -> Void = {
            guard let target = store else { return }
            for round in 1...rounds {
                let batch: [JSONValue] = (0..<documents).map { index in
                    ["_id": .string("doc-\(index)"), "_rev": .string(leaves["doc-\(index)"] ?? ""), "n": .number(JSONNumber(round))]
                }
                for result in try await target.bulkDocs(batch) {
                    guard case .ok(let written) = result else { throw BenchmarkError.unexpected("an update failed: \(result)") }
                    leaves[written.id] = written.rev
                }
            }
        }
        try await BenchmarkGroup(
            name: "Long histories: \(documents * rounds) updates, \(rounds) rounds of \(documents) documents in one _bulk_docs each",
            unit: "updates", operations: documents * rounds,
            baseline: .init(name: "documents written once", setUp: histories(1), body: update),
            candidates: [
                .init(name: "documents with 100 revisions", setUp: histories(100), body: update),
                .init(name: "documents with 1000 revisions (the revs limit: each update stems one)", setUp: histories(1000), body: update),
            ],
            target: nil
        ).run(repetitions: repetitions)
        try? store?.close()
    }
}
