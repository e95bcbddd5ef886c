internal import CloudantCore
internal import Foundation
internal import GRDB

/// The store's index and projection lists, parsed once and reused until the schema changes.
///
/// Index and projection tables are created and dropped with their definitions, so SQLite's
/// `schema_version` (which any process writing the file bumps on CREATE or DROP) says exactly when a cached
/// list is stale; reading it costs one header read instead of parsing every definition on every query and
/// every write transaction.
final class IndexCatalogCache: @unchecked Sendable {
    // `lock` protects `cachedIndexes` and `cachedProjections`.
    private let lock = NSLock()
    private var cachedIndexes: (schemaVersion: Int, value: [StoredIndex])?
    private var cachedProjections: (schemaVersion: Int, value: [StoredProjection])?

    /// The indexes last read, without checking they are current: good enough to guess how a query will
    /// run before opening a transaction, never to run it.
    var lastKnown: [StoredIndex] { lock.withLock { cachedIndexes?.value ?? [] } }

    /// ``lastKnown`` with the schema version it was read at, `nil` before the first read.
    var lastKnownCatalogue: (schemaVersion: Int, indexes: [StoredIndex])? {
        lock.withLock { cachedIndexes.map { ($0.schemaVersion, $0.value) } }
    }

    /// Plans of recent query shapes, for the catalogue of one schema version.
    let plans = QueryPlanCache()

    /// The committed numbers of projection labels, kept across schema versions (a label's number never
    /// changes once committed).
    let labels = ProjectionLabels()

    /// The schema version of the cached index list, `nil` when none is cached.
    var cachedSchemaVersion: Int? { lock.withLock { cachedIndexes?.schemaVersion } }

    /// Forgets every cached list and plan.
    ///
    /// SQLite's schema version is the key, and a rolled-back transaction takes it back: the next schema change
    /// reuses the number with other tables. What a failed write transaction cached must not outlive it.
    func invalidate() {
        lock.withLock {
            cachedIndexes = nil
            cachedProjections = nil
        }
        plans.removeAll()
    }

    /// The indexes as of `db`'s transaction.
    func indexes(in db: Database) throws -> [StoredIndex] {
        try current(\.cachedIndexes, in: db, version: schemaVersion(db), load: IndexCatalog.all)
    }

    /// The indexes as of `db`'s transaction, with the schema version that identifies them.
    func catalogue(in db: Database) throws -> (schemaVersion: Int, indexes: [StoredIndex]) {
        let version = try schemaVersion(db)
        return (version, try current(\.cachedIndexes, in: db, version: version, load: IndexCatalog.all))
    }

    /// The projections as of `db`'s transaction.
    func projections(in db: Database) throws -> [StoredProjection] {
        try current(\.cachedProjections, in: db, version: schemaVersion(db), load: loadProjections)
    }

    /// Both lists, reading the schema version once (every write transaction asks for both).
    func catalog(in db: Database) throws -> (indexes: [StoredIndex], projections: [StoredProjection]) {
        let version = try schemaVersion(db)
        return (
            try current(\.cachedIndexes, in: db, version: version, load: IndexCatalog.all),
            try current(\.cachedProjections, in: db, version: version, load: loadProjections)
        )
    }

    /// The projections as the file records them, sharing the labels this cache remembers.
    private func loadProjections(_ db: Database) throws -> [StoredProjection] {
        try ProjectionCatalog.all(in: db, labels: labels)
    }

    private func schemaVersion(_ db: Database) throws -> Int {
        try db.cachedStatement(sql: "PRAGMA schema_version").fetchInteger(in: db).map(Int.init) ?? 0
    }

    private func current<Value>(
        _ slot: ReferenceWritableKeyPath<IndexCatalogCache, (schemaVersion: Int, value: Value)?>, in db: Database,
        version: Int, load: (Database) throws -> Value
    ) throws -> Value {
        if let cached = lock.withLock({ self[keyPath: slot] }), cached.schemaVersion == version { return cached.value }
        let value = try load(db)
        lock.withLock { self[keyPath: slot] = (version, value) }
        return value
    }
}
