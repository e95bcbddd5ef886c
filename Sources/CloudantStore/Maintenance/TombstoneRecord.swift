internal import CloudantCore
internal import Foundation
internal import GRDB

/// The `tombstones` rows: when each deleted document was deleted.
enum TombstoneRecord {
    private typealias Table = StoreSchema.Tombstones
    private typealias Documents = StoreSchema.Documents

    /// Keeps the row in step after a document's winner changed: dated `now` when the document is now
    /// deleted (and still there: a purged document has no row to date), removed when it is live.
    static func update(rowID: Int64, isLive: Bool, now: Double, in db: Database) throws {
        if isLive {
            let statement = try db.cachedStatement(sql: "DELETE FROM \(Table.table) WHERE \(Table.documentRowID) = ?")
            try statement.execute(arguments: [rowID])
        } else {
            let statement = try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO \(Table.table) (\(Table.documentRowID), \(Table.deletedAt))
                    SELECT ?, ? WHERE EXISTS (SELECT 1 FROM \(Documents.table) WHERE \(Documents.rowID) = ? AND \(Documents.deleted) = 1)
                    """)
            try statement.execute(arguments: [rowID, now, rowID])
        }
    }

    /// Up to `limit` deleted documents deleted at or before `cutoff` whose deletion is at or below `maxSeq`
    /// (nil: any), oldest first, with their revision trees' leaves.
    static func purgeable(deletedBy cutoff: Double, maxSeq: Int64?, limit: Int, in db: Database) throws -> [String: [RevisionID]] {
        let rows = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT d.\(Documents.id), d.\(Documents.tree) FROM \(Table.table) t
                    JOIN \(Documents.table) d ON d.\(Documents.rowID) = t.\(Table.documentRowID)
                    WHERE t.\(Table.deletedAt) <= ? AND d.\(Documents.deleted) = 1 AND d.\(Documents.seq) <= ?
                    ORDER BY t.\(Table.deletedAt) LIMIT ?
                    """),
            arguments: [cutoff, maxSeq ?? Int64.max, limit])
        var result: [String: [RevisionID]] = [:]
        for row in rows {
            let tree: Data = row[1]
            result[row[0]] = try RevisionTree(decoding: tree).leaves
        }
        return result
    }
}
