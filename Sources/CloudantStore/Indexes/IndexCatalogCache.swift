internal import Foundation
internal import GRDB

/// The store's index and projection lists, parsed once and reused until the schema changes.
///
/// Index and projection tables are created and dropped with their definitions, so SQLite's
/// `schema_version` (which any process writing the file bumps on CREATE or DROP) says exactly when a cached
/// list is stale; reading it costs one header read instead of parsing every definition on every query and
/// every write transaction.
final class IndexCatalogCache: @unchecked Sendable {
    // `lock` protects `cached` and `cachedProjections`.
    private let lock = NSLock()
    private var cached: (schemaVersion: Int, indexes: [StoredIndex])?
    private var cachedProjections: (schemaVersion: Int, projections: [StoredProjection])?

    /// The indexes last read, without checking they are current: good enough to guess how a query will
    /// run before opening a transaction, never to run it.
    var lastKnown: [StoredIndex] { lock.withLock { cached?.indexes ?? [] } }

    /// The indexes as of `db`'s transaction.
    func indexes(in db: Database) throws -> [StoredIndex] {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        if let cached = lock.withLock({ cached }), cached.schemaVersion == version { return cached.indexes }
        let indexes = try IndexCatalog.all(in: db)
        lock.withLock { cached = (version, indexes) }
        return indexes
    }

    /// The projections as of `db`'s transaction.
    func projections(in db: Database) throws -> [StoredProjection] {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        if let cached = lock.withLock({ cachedProjections }), cached.schemaVersion == version { return cached.projections }
        let projections = try ProjectionCatalog.all(in: db)
        lock.withLock { cachedProjections = (version, projections) }
        return projections
    }
}
