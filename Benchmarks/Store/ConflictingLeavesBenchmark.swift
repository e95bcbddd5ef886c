import CloudantOnly
import Foundation

/// Conflicting leaves of one document, as an attacker (or a very divergent replica) sends them with
/// `_bulk_docs new_edits=false`: 10 000 distinct first revisions of one id in one batch must be written in under a
/// second, or refused with a clear error; the bound on leaves per document (1 000 by default) refuses the rest.
///
/// Baseline: the same number of first revisions of distinct documents (one leaf each), which any store writes in
/// linear time. The candidates show the merge is linear too: 1 000 and 10 000 leaves of one document cost what
/// the same number of separate documents cost, give or take, and ten times the leaves cost about ten times as much.
enum ConflictingLeavesBenchmark {
    static func run(leaves: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("leaves")
        defer { Scratch.remove(folder) }
        func revisions(_ count: Int, sameDocument: Bool) -> [JSONValue] {
            (0..<count).map { index in
                let id = sameDocument ? "crowded" : String(format: "doc-%08d", index)
                return ["_id": .string(id), "_rev": .string("1-" + String(format: "%032x", index)), "n": .number(JSONNumber(index))]
            }
        }
        let distinct = revisions(leaves, sameDocument: false)
        let conflicting = revisions(leaves, sameDocument: true)
        let tenth = revisions(leaves / 10, sameDocument: true)
        var store: DocumentStore?
        var refused = 0
        func fresh(maxLeaves: Int) -> () async throws -> Void {
            {
                try? store?.close()
                Scratch.remove(folder)
                var options = StoreOptions()
                options.maxLeavesPerDocument = maxLeaves
                store = try DocumentStore.open(name: "leaves", in: StoreDirectory(path: folder.path), options: options)
            }
        }
        func write(_ batch: [JSONValue]) -> () async throws -> Void {
            { refused = try await store?.bulkDocs(batch, newEdits: false).count ?? 0 }
        }
        let medians = try await BenchmarkGroup(
            name: "Conflicting leaves: \(leaves) first revisions in one _bulk_docs new_edits=false",
            unit: "revisions", operations: leaves,
            baseline: .init(
                name: "\(leaves) documents, one revision each", setUp: fresh(maxLeaves: leaves), body: write(distinct)),
            candidates: [
                .init(name: "\(leaves) leaves of one document, all kept", setUp: fresh(maxLeaves: leaves), body: write(conflicting)),
                .init(
                    name: "\(leaves / 10) leaves of one document (a tenth)", setUp: fresh(maxLeaves: leaves),
                    body: write(tenth)),
                .init(
                    name: "\(leaves) leaves, default bound (\(StoreOptions.defaultMaxLeavesPerDocument) kept)",
                    setUp: fresh(maxLeaves: StoreOptions.defaultMaxLeavesPerDocument), body: write(conflicting)),
            ],
            target: nil
        ).run(repetitions: repetitions)
        try? store?.close()
        print(String(format: "  all %d leaves kept: %.3f s (under 1 s: %@)", leaves, medians[1], medians[1] < 1 ? "met" : "MISSED"))
        print(String(format: "  with the default bound: %.3f s, %d refused with tooManyLeaves (under 1 s: %@)",
                     medians[3], refused, medians[3] < 1 ? "met" : "MISSED"))
        print(String(format: "  ten times the leaves cost %.1f× the time (linear: about 10×)", medians[1] / medians[2]))
    }
}
