import CloudantOnly
import CloudantServer
import Foundation

/// What replication costs once the stores are large.
///
/// - A no-op sync of two stores already in step, each of `documents` documents, over our HTTP endpoint: the
///   replicator must see from the checkpoints that there is nothing to do, without reading the stores. The
///   baseline is the least any such check costs: one HTTP round trip on a kept-alive connection (a `GET` of
///   the target database).
/// - Replicating `batch` new documents into a target that already holds `documents`, against the same
///   into an empty target, in the same run: the cost per document must not grow with the target.
enum SyncScaleBenchmarks {
    static func run(documents: Int, batch: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("sync-scale")
        defer { Scratch.remove(folder) }
        let served = StoreDirectory(path: folder.appendingPathComponent("served").path)
        let local = StoreDirectory(path: folder.appendingPathComponent("local").path)

        print("\nSync at scale: building two stores of \(documents) small documents in step (untimed)…")
        let source = try DocumentStore.open(name: "source", in: local)
        try await fill(source, from: 0, count: documents, prefix: "doc")
        let mirror = try DocumentStore.open(name: "mirror", in: served)
        _ = try await Replicator(source: LocalPeer(source), target: LocalPeer(mirror)).run()

        let server = try await BenchServer.start(serving: served)
        defer { server.serving.cancel() }
        let base = server.base
        let credentials = BenchServer.credentials
        let remote = try HTTPPeer(url: URL(string: base + "/mirror")!, authentication: credentials)
        // One sync over HTTP writes the checkpoints both sides keep; from then on the stores are in step.
        let first = try await Replicator(source: LocalPeer(source), target: remote).run()
        print("  first sync over HTTP (writes the checkpoints): \(first.docsWritten) documents written")
        let port = Int(base.split(separator: ":").last ?? "0") ?? 0
        let client = try LoopbackClient(port: port)
        let authorization = BenchServer.authorization

        var written = 0
        try await BenchmarkGroup(
            name: "No-op sync of two stores of \(documents) documents in step, over HTTP",
            unit: "syncs", operations: 1,
            baseline: .init(name: "one GET /mirror round trip", body: { try client.request("GET", "/mirror", headers: authorization) }),
            candidates: [
                .init(
                    name: "Replicator(LocalPeer → HTTPPeer)",
                    body: { written += try await Replicator(source: LocalPeer(source), target: remote).run().docsWritten })
            ]
        ).run(repetitions: repetitions)
        print("  (target: under 100 ms; documents written by the no-op syncs: \(written))")

        // `batch` new documents into the large mirror, and into an empty store, alternately.
        var round = 0
        var empty: DocumentStore?
        var fresh: DocumentStore?
        try await BenchmarkGroup(
            name: "Replicate \(batch) new documents into a target of \(documents) vs an empty one",
            unit: "docs", operations: batch,
            baseline: .init(
                name: "into an empty target",
                setUp: {
                    round += 1
                    fresh = try DocumentStore.open(name: "new-\(round)", in: local)
                    try await fill(fresh!, from: 0, count: batch, prefix: "new\(round)")
                    empty = try DocumentStore.open(name: "empty-\(round)", in: served)
                },
                body: { _ = try await Replicator(source: LocalPeer(fresh!), target: LocalPeer(empty!)).run() }),
            candidates: [
                .init(
                    name: "into the target of \(documents)",
                    setUp: {},
                    body: { _ = try await Replicator(source: LocalPeer(fresh!), target: LocalPeer(mirror)).run() })
            ],
            target: 1.2
        ).run(repetitions: repetitions)
        await server.stop()
    }

    /// Writes `count` small documents `<prefix>-<n>` in batches of 10,000.
    static func fill(_ store: DocumentStore, from start: Int, count: Int, prefix: String) async throws {
        var generator = SplitMix64(seed: UInt64(start + count))
        for first in stride(from: start, to: start + count, by: 10_000) {
            let documents: [JSONValue] = (first..<min(first + 10_000, start + count)).map { index in
                ["_id": .string(String(format: "%@-%08d", prefix, index)), "type": "HKQuantitySample",
                 "value": .number(JSONNumber(Int(generator.next() % 200))), "unit": "count/min"]
            }
            _ = try await store.bulkDocs(documents)
        }
    }
}
