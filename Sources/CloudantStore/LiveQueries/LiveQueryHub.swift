internal import CloudantCore
internal import Foundation
internal import GRDB

/// Reads each committed change once for every live query of a store, and hands it to each observer to
/// decide whether its results may have changed.
///
/// One pump task runs while at least one live query does. After each commit (wake-ups coalesce) it reads
/// the changes feed from where it stopped, with the winning documents, so the work per write is
/// proportional to the documents it changed and the number of observers, never to the size of the store.
final class LiveQueryHub: @unchecked Sendable {
    /// Changes read per transaction when the pump catches up on a burst.
    static let batchSize = 500

    // `lock` protects `observers`, `nextID` and `pump`.
    private let lock = NSLock()
    private var observers: [Int: any LiveObserver] = [:]
    private var nextID = 0
    private var pump: Task<Void, Never>?

    /// Adds `observer`; every change committed after this returns reaches it.
    /// - Throws: `CloudantError` when the store cannot be read (or is closed).
    func register(_ observer: any LiveObserver, in store: DocumentStore) throws -> Int {
        try lock.withLock {
            if pump == nil {
                // Subscribe before reading where the feed stands, so no commit falls between the two.
                let wakeUps = store.notifier.subscribe()
                let start = try store.readNow(.storeUnreadable) { db in try Self.position(in: db) }
                pump = Task { [weak self] in await self?.run(store: store, wakeUps: wakeUps, from: start) }
            }
            nextID += 1
            observers[nextID] = observer
            return nextID
        }
    }

    /// How many live queries run, and whether the pump does (for tests and diagnostics).
    var state: (observers: Int, pumping: Bool) {
        lock.withLock { (observers.count, pump != nil) }
    }

    /// Removes an observer; the pump stops with the last one.
    func unregister(_ id: Int) {
        let stopped: Task<Void, Never>? = lock.withLock {
            observers.removeValue(forKey: id)
            guard observers.isEmpty else { return nil }
            defer { pump = nil }
            return pump
        }
        stopped?.cancel()
    }

    /// Where the feed stands: the update sequence and the purge counter (purges leave no change behind).
    private static func position(in db: Database) throws -> (seq: Int64, purgeSeq: Int64) {
        (try SequenceAllocator.latest(in: db), try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db))
    }

    private func run(store: DocumentStore, wakeUps: AsyncStream<Void>, from start: (seq: Int64, purgeSeq: Int64)) async {
        var since = start.seq
        var purgeSeq = start.purgeSeq
        for await _ in wakeUps {
            do {
                var more = true
                while more, !Task.isCancelled {
                    let options = ChangesOptions(since: since, limit: Self.batchSize, includeDocs: true)
                    let (page, position) = try store.readNow(.storeUnreadable) { db in
                        (try DocumentStore.readChanges(options, in: db), try Self.position(in: db))
                    }
                    let purged = position.purgeSeq != purgeSeq
                    purgeSeq = position.purgeSeq
                    if !page.results.isEmpty || purged {
                        for observer in lock.withLock({ Array(observers.values) }) {
                            observer.consider(page.results, purged: purged)
                        }
                    }
                    since = page.lastSeq
                    more = page.hasMore
                }
            } catch {
                // The store closed or failed: every observer's next run reports it.
                break
            }
        }
        // Stopped because the last live query ended: the observers now registered belong to the pump that
        // replaced this one, and must not be ended with it.
        if Task.isCancelled { return }
        // The store closed (its notifier finished) or the feed failed: end every live query.
        for observer in lock.withLock({ Array(observers.values) }) { observer.finish() }
    }
}
