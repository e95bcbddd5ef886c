internal import GRDB

/// The documents' index by entity kind (`documents_by_kind`), which a bulk load into an empty store leaves
/// out while it writes and builds once at the end (see ``DocumentStore/bulkLoading(_:)``).
///
/// Why: a health export lists its records grouped by type, and every type's records span the export's
/// whole time range, so each batch of one type inserts entries all over the `(kind, id)` index. Each
/// committed batch then writes every index page it touched to the log again, and a checkpoint copies them
/// into the file. Replaying a 1M-record import's rows into the store's schema with SQLite alone (1,500
/// rows a transaction, 2026-11-28): 17.7–18.3 s with the index kept up, 14.2 s with it built at the end
/// (the build itself ~1 s), and 2.1 GB less written to the disk.
///
/// A process that dies during such a load leaves the store without the index; opening the store builds it
/// again (``restoreIfMissing(in:)``). Meanwhile queries by kind are answered all the same, by scanning.
enum DeferredKindIndex {
    static let name = "documents_by_kind"

    /// The index exactly as the store's first migration creates it (a test compares the two), so a rebuilt
    /// index is the same index.
    static let definition =
        "CREATE INDEX documents_by_kind ON documents(kind, id) WHERE kind IS NOT NULL AND deleted = 0"

    static func exists(in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = ?)", arguments: [name]) ?? false
    }

    /// Drops the index when the store holds no documents but design documents (the indexes entity kinds
    /// declare live in some), live or deleted: the load about to start then writes every entry the index
    /// will hold. Returns whether it dropped it, so the load knows to build it at the end.
    static func dropForLoad(in db: Database) throws -> Bool {
        let onlyDesignDocuments = try Bool.fetchOne(
            db, sql: "SELECT NOT EXISTS (SELECT 1 FROM documents WHERE id NOT LIKE '\\_design/%' ESCAPE '\\')") ?? false
        guard onlyDesignDocuments, try exists(in: db) else { return false }
        try db.execute(sql: "DROP INDEX \(name)")
        return true
    }

    /// Builds the index when it is missing: at the end of a load that dropped it, and when a store is opened
    /// after a process died during such a load.
    ///
    /// The sorter gets a 1 MB cache, one thread: over the 1M documents of a health import the build took
    /// 1.0 s and 6.6 MB that way, 0.8–0.9 s but 20–70 MB with a helper thread or a larger cache (the sorter
    /// holds a cache's worth per run), which raised the import's peak memory by 12–18 MB.
    static func restoreIfMissing(in db: Database) throws {
        guard try !exists(in: db) else { return }
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -1024")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        try db.execute(sql: definition)
    }
}
