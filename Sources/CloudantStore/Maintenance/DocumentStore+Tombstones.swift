internal import Foundation
internal import CloudantCore
internal import GRDB

extension DocumentStore {
    /// Purges the tombstones of documents deleted longer than `retention` ago (by the store's clock), so a
    /// store whose documents come and go does not keep one row per document it ever held. Returns their ids.
    ///
    /// ```swift
    /// let purged = try await store.purgeTombstones(olderThan: .seconds(30 * 86_400))   // 30 days
    /// ```
    ///
    /// A purged tombstone can no longer replicate: a replica that has not seen the deletion keeps its
    /// copy. So, with `respectingCheckpoints` (the default), a tombstone stays until every replication that
    /// reads this store has passed it: its sequence must be at or below every replication checkpoint kept
    /// here (`_local` documents with a `source_last_seq`, which CouchDB's, PouchDB's and our replicators
    /// write on both peers). A replication that stopped for good holds tombstones back until its checkpoint
    /// is deleted. Checkpoints whose sequence is not a number (another database's opaque sequence) are
    /// not this store's and are not counted. Tombstones written before this feature are dated by the
    /// upgrade that added it.
    /// - Throws: `CloudantError` `.storeUnwritable` when the store cannot be written.
    @discardableResult
    public func purgeTombstones(olderThan retention: Duration, respectingCheckpoints: Bool = true) async throws -> [String] {
        let clock = options.now
        let cutoff = clock().timeIntervalSince1970 - Double(retention.components.seconds)
            - Double(retention.components.attoseconds) / 1e18
        let makeID = options.makeDocumentID
        let cache = indexCache
        var purged: [String] = []
        while true {
            let batch = try await write(.storeUnwritable) { db in
                let floor = respectingCheckpoints ? try Self.checkpointFloor(in: db) : nil
                let due = try TombstoneRecord.purgeable(deletedBy: cutoff, maxSeq: floor, limit: Self.purgeBatchSize, in: db)
                return Array(try Self.purge(due, makeDocumentID: makeID, now: clock, indexCache: cache, in: db).keys)
            }
            purged += batch
            if batch.count < Self.purgeBatchSize { break }
        }
        if !purged.isEmpty { notifier.publish() }
        return purged.sorted()
    }

    /// The lowest sequence any replication checkpoint kept here has read up to; nil without checkpoints.
    static func checkpointFloor(in db: Database) throws -> Int64? {
        let local = StoreSchema.LocalDocuments.self
        var floor: Int64?
        let rows = try Row.fetchCursor(db, sql: "SELECT \(local.body) FROM \(local.table)")
        while let row = try rows.next() {
            let text: String = row[0]
            guard case .object(let body) = try? JSONValue(parsing: Array(text.utf8)), let seq = body["source_last_seq"],
                let number = sequenceNumber(seq)
            else { continue }
            floor = min(floor ?? number, number)
        }
        return floor
    }

    /// A checkpoint's sequence as this store's integer: a number, or a string that is one (CouchDB 1.x
    /// style) or starts with one before `-` (CouchDB 2+: `N-opaque`, where N is only an estimate, so it
    /// is read conservatively as is).
    private static func sequenceNumber(_ value: JSONValue) -> Int64? {
        switch value {
        case .number(let number): return Int64(exactly: number.doubleValue)
        case .string(let text):
            if let whole = Int64(text) { return whole }
            return text.split(separator: "-", maxSplits: 1).first.flatMap { Int64($0) }
        default: return nil
        }
    }
}
