import CloudantOnly
import Foundation

/// Replaying `writes` offline writes to our HTTP endpoint (goal: 10,000 in under 5 s), against a
/// push replication of as many new documents to the same server in the same run, the protocol the replay
/// speaks (`_bulk_docs` with `new_edits: false`) without the queue's bookkeeping.
enum QueueReplayBenchmarks {
    struct Memo: Codable, Identifiable, Sendable, CloudantRevision {
        var id: String
        var text: String
        var minutes: Int
        var revId: String?
    }

    static func run(writes: Int, repetitions: Int) async throws {
        let folder = Scratch.folder("queue-replay")
        defer { Scratch.remove(folder) }
        let served = StoreDirectory(path: folder.appendingPathComponent("served").path)
        let devices = StoreDirectory(path: folder.appendingPathComponent("devices").path)
        let server = try await BenchServer.start(serving: served)
        defer { server.serving.cancel() }
        let base = server.base
        let credentials = BenchServer.credentials
        let options = StoreOptions(acceptsUnregisteredEntities: true)

        var round = 0
        var device: DocumentStore?
        var remote: RemoteDatabase?
        /// A fresh remote database and a device store holding `writes` memos (untimed).
        func prepare(queued: Bool) async throws {
            round += 1
            remote = try RemoteDatabase(url: URL(string: "\(base)/replay-\(round)")!, authentication: credentials)
            try await remote!.peer.createIfMissing()
            device = try DocumentStore.open(name: "device-\(round)", in: devices, options: options)
            for first in stride(from: 0, to: writes, by: 1_000) {
                let memos = (first..<min(first + 1_000, writes)).map { Memo(id: String(format: "memo-%06d", $0), text: "note \($0)", minutes: $0 % 90) }
                if queued {
                    _ = try await device!.add(memos, enqueueingFor: remote!.identity)
                } else {
                    _ = try await device!.add(memos)
                }
            }
        }

        print("\nOffline queue: replaying \(writes) queued writes to cloudant serve on 127.0.0.1 (fresh database each run)")
        var sent = 0
        try await BenchmarkGroup(
            name: "Offline queue replay of \(writes) writes over HTTP",
            unit: "writes", operations: writes,
            baseline: .init(
                name: "push replication of \(writes) new documents",
                setUp: { try await prepare(queued: false) },
                body: { _ = try await Replicator(source: LocalPeer(device!), target: remote!.peer).run() }),
            candidates: [
                .init(
                    name: "OfflineWriteQueue.replay()",
                    setUp: { try await prepare(queued: true) },
                    body: { sent += try await OfflineWriteQueue(store: device!, remote: remote!).replay().sent })
            ]
        ).run(repetitions: repetitions)
        print("  (target: \(writes) writes in under 5 s; writes sent by the replays: \(sent))")
        await server.stop()
    }
}
