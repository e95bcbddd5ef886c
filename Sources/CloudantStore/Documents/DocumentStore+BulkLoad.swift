internal import CloudantCore
internal import GRDB

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
    ///   (40 MB was no faster on a 1M-record import and put its peak memory over 150 MB);
    /// - checkpoints every 64 MB of log instead of 4 MB: each one syncs the file, and between checkpoints
    ///   a page changed by many batches is copied into the database once.
    ///
    /// Other writes made meanwhile use the same settings. Loads that overlap restore the settings when the
    /// first ends; that affects only their speed.
    /// - Throws: what `body` throws, or ``CloudantError`` `.updateFailed` when the settings cannot be applied.
    public func bulkLoading<T>(_ body: () async throws -> T) async throws -> T {
        let saved = try writerSettings(Self.bulkLoadSettings)
        defer { _ = try? writerSettings(saved) }
        return try await body()
    }

    private static let bulkLoadSettings = ["mmap_size": 0, "cache_size": -16_384, "wal_autocheckpoint": 16_384]

    /// Applies `settings` (pragma name → value) to the writer connection and returns the values they replace.
    private func writerSettings(_ settings: [String: Int]) throws -> [String: Int] {
        do {
            return try pool.writeWithoutTransaction { db in
                var previous: [String: Int] = [:]
                for (name, value) in settings {
                    // Names come from the fixed table above, never from input; values are integers.
                    previous[name] = try Int.fetchOne(db, sql: "PRAGMA \(name)")
                    try db.execute(sql: "PRAGMA \(name) = \(value)")
                }
                return previous
            }
        } catch {
            throw CloudantError(
                .updateFailed, "The store's writer could not be set up for a bulk load.",
                context: .init(database: name), underlying: error)
        }
    }
}
