import CloudantOnly
import CloudantSyncNIO
import Foundation

/// Pulling small documents with the replicator — between two stores in one process, and from our
/// HTTP endpoint on loopback — against the least any copy must do, writing the same revisions into a fresh
/// store with `bulkDocs(newEdits: false)`, in the same run.
enum SyncBenchmarks {
    static func localPull(documents: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("sync")
        defer { Scratch.remove(folder) }
        let served = folder.appendingPathComponent("served")
        let source = try DocumentStore.open(name: "source", in: StoreDirectory(path: served.path))
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

        // The same store served over HTTP on loopback.
        let server = try await BenchServer.start(serving: StoreDirectory(path: served.path))
        defer { server.serving.cancel() }
        let remote = try HTTPPeer(url: URL(string: server.base + "/source")!, authentication: BenchServer.credentials)
        let remoteNIO = try HTTPPeer(
            url: URL(string: server.base + "/source")!, authentication: BenchServer.credentials,
            transport: AsyncHTTPClientTransport())
        // Each candidate pulls from its source into a fresh target.
        let sources: [(name: String, peer: () -> any ReplicationPeer)] = [
            ("LocalPeer → LocalPeer", { LocalPeer(source) }),
            ("HTTPPeer → LocalPeer, URLSession", { remote }),
            ("HTTPPeer → LocalPeer, AsyncHTTPClient", { remoteNIO }),
        ]

        var target: DocumentStore?
        var round = 0
        func fresh() throws {
            round += 1
            target = try DocumentStore.open(name: "target-\(round)", in: StoreDirectory(path: folder.path))
        }
        try await BenchmarkGroup(
            name: "Pull: replicate \(documents) small documents into a fresh store (HTTP: our endpoint on loopback)",
            unit: "docs", operations: documents,
            baseline: .init(
                name: "bulkDocs(newEdits: false) of the same revisions",
                setUp: { try fresh() },
                body: {
                    for start in stride(from: 0, to: revisions.count, by: 1_000) {
                        _ = try await target?.bulkDocs(Array(revisions[start..<min(start + 1_000, revisions.count)]), newEdits: false)
                    }
                }),
            candidates: sources.map { name, peer in
                .init(
                    name: name,
                    setUp: { try fresh() },
                    body: {
                        guard let target else { return }
                        _ = try await Replicator(source: peer(), target: LocalPeer(target)).run()
                    })
            }
        ).run(repetitions: repetitions)
        print("  targets: ≤ 5 s between two of our stores; ≤ 15 s from a CouchDB-speed source")
        await server.stop()
        try fresh()
        if let target { try await phases(source: source, target: target, revisions: revisions) }
    }

    /// Where a local pull spends its time: each step of the protocol alone, over every document, in the
    /// replicator's batch sizes (1000 changes per batch, 250 revisions per fetch), one at a time.
    private static func phases(source: DocumentStore, target: DocumentStore, revisions: [JSONValue]) async throws {
        func timed(_ name: String, _ body: () async throws -> Void) async throws {
            let start = ContinuousClock.now
            try await body()
            print("    \(name.padding(toLength: 44, withPad: " ", startingAt: 0))\(String(format: "%7.3f s", (ContinuousClock.now - start).seconds))")
        }
        print("  one pass of each step of a local pull, alone:")
        var pages: [[Change]] = []
        try await timed("changes (style=all_docs, 1000 per page)") {
            var since: Int64 = 0
            while true {
                let page = try await source.changes(ChangesOptions(since: since, limit: 1_000, style: .allDocs))
                if page.results.isEmpty { break }
                pages.append(page.results)
                since = page.lastSeq
            }
        }
        try await timed("revsDiff against an empty target") {
            for page in pages {
                _ = try await target.revsDiff(Dictionary(page.map { ($0.id, $0.changes) }, uniquingKeysWith: { first, _ in first }))
            }
        }
        try await timed("bulkGet with histories (250 per request)") {
            let requests = pages.flatMap { $0 }.map { BulkGetRequest(id: $0.id) }
            for start in stride(from: 0, to: requests.count, by: 250) {
                _ = try await source.bulkGet(Array(requests[start..<min(start + 250, requests.count)]))
            }
        }
        try await timed("bulkDocs(newEdits: false), 1000 per batch") {
            for start in stride(from: 0, to: revisions.count, by: 1_000) {
                _ = try await target.bulkDocs(Array(revisions[start..<min(start + 1_000, revisions.count)]), newEdits: false)
            }
        }
    }
}
