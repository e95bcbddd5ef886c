internal import CloudantCore
internal import GRDB
internal import Synchronization

extension DocumentStore {
    /// Runs `body` with the store's writer connection set up for loading many documents, then restores it.
    ///
    /// ```swift
    /// try await store.bulkLoading {
    ///     for batch in batches { _ = try await store.insertNew(batch) }
    /// }
    /// ```
    ///
    /// Nothing about what is written changes, nor its durability (commits are as durable as always); only
    /// how the writer connection pages:
    /// - no memory map for the writer: every page it touches through the map stays in the process's
    ///   resident memory, so a load of a million documents grew to the size of the file's indexes (and a
    ///   bulk load reads nothing that benefits from the map);
    /// - a larger page cache instead (16 MB), so inserts at random places in the id index find their pages
    ///   (40 MB was no faster on a 1M-record import and put its peak memory over 150 MB); 4 MB when the load
    ///   builds the kind index at the end (below), which leaves the id index as the only one written all
    ///   over: the 1M-record import then took the same time with 4 MB as with 16 MB (24.9 s, medians of four
    ///   alternated runs) and peaked at 81–83 MB instead of 94–96 MB;
    /// - the writer checkpoints every 32 MB of log, inside the commit that reaches it, instead of queueing a
    ///   checkpoint every 4 MB, so the log starts over at its beginning about every 32 MB and keeps writing
    ///   into blocks the file already has. A log let to grow to 256 MB wrote every frame into a newly
    ///   allocated block, which ext4 zeroes around each frame's unaligned write: on Linux 6.18 that zeroing
    ///   was 8 % of a health import's CPU (a 200k-record import took 4.6 s instead of 5.6 s). Checkpoints run
    ///   on the writer only (see `LogCheckpointer`): a checkpointer polling beside the writer on a
    ///   connection of its own made the writer stop less often, but it is the pattern that meets SQLite's
    ///   WAL-reset bug, which can lose committed pages;
    /// - no cutting back of the log meanwhile: the writer cuts a log back to 64 MB once a checkpoint has
    ///   emptied it, which during a load would truncate and regrow the file at every checkpoint (measured
    ///   2 s slower); the first checkpoint after the load cuts it back.
    ///
    /// A load into a store that holds nothing but design documents also leaves out the index of documents by
    /// entity kind while it writes, and builds it once `body` returns or throws (about a second per million
    /// documents, against three to four seconds of keeping it up; see `DeferredKindIndex`). Queries by kind
    /// made meanwhile are answered all the same, by scanning; a store opened after the process died during
    /// such a load builds the index then.
    ///
    /// Other writes made meanwhile use the same settings. Loads that overlap restore the settings when the
    /// first ends; that affects only their speed.
    /// - Throws: what `body` throws, or `CloudantError` `.storeUnwritable` when the settings cannot be applied
    ///   or the index cannot be built at the end (then the next open of the store builds it).
    public func bulkLoading<T>(_ body: () async throws -> T) async throws -> T {
        let saved = try writerSettings(Self.bulkLoadSettings)
        // No queued checkpoints: the writer checkpoints by itself every 32 MB.
        let savedBackgroundPages = self.checkpointer.backgroundPages.exchange(.max, ordering: .relaxed)
        let savedWriterPages = self.checkpointer.writerPages.exchange(Self.bulkLoadWriterPages, ordering: .relaxed)
        defer {
            _ = try? writerSettings(saved)
            self.checkpointer.backgroundPages.store(savedBackgroundPages, ordering: .relaxed)
            self.checkpointer.writerPages.store(savedWriterPages, ordering: .relaxed)
        }
        let deferredKindIndex = try await write(.storeUnwritable) { db in try DeferredKindIndex.dropForLoad(in: db) }
        if deferredKindIndex { _ = try writerSettings(Self.cacheWithoutKindIndex) }
        let result: T
        do {
            result = try await body()
        } catch {
            if deferredKindIndex { _ = try? await write(.storeUnwritable) { db in try DeferredKindIndex.restoreIfMissing(in: db) } }
            throw error
        }
        if deferredKindIndex { try await write(.storeUnwritable) { db in try DeferredKindIndex.restoreIfMissing(in: db) } }
        return result
    }

    private static let bulkLoadSettings = ["mmap_size": 0, "cache_size": -16_384, "journal_size_limit": -1]
    /// The page cache of a load that builds the kind index at the end (restored with the others afterwards).
    private static let cacheWithoutKindIndex = ["cache_size": -4_096]
    /// 32 MB of 4 KB pages.
    static let bulkLoadWriterPages = 8_192

    /// Applies `settings` (pragma name → value) to the writer connection and returns the values they replace.
    private func writerSettings(_ settings: [String: Int]) throws -> [String: Int] {
        do {
            return try lifecycle.whileOpen(database: name) {
                try pool.writeWithoutTransaction { db in
                    var previous: [String: Int] = [:]
                    for (name, value) in settings {
                        // Names come from the fixed table above, never from input; values are integers.
                        previous[name] = try Int.fetchOne(db, sql: "PRAGMA \(name)")
                        try db.execute(sql: "PRAGMA \(name) = \(value)")
                    }
                    return previous
                }
            }
        } catch {
            throw CloudantError(
                .storeUnwritable, "The store's writer could not be set up for a bulk load.",
                context: .init(database: name), underlying: error)
        }
    }
}
