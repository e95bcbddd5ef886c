internal import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    private typealias Documents = StoreSchema.Documents
    private typealias Bodies = StoreSchema.RevisionBodies

    /// What the file holds: documents, revision bodies, attachment bytes, file and WAL sizes, and what
    /// compaction would give back. Reads every document's row once (no body is parsed).
    public func storageStats() async throws -> StorageStats {
        let walURL = URL(fileURLWithPath: fileURL.path + "-wal")
        let stats = try await read(.storeUnreadable) { db in
            let documents = try Row.fetchOne(
                db,
                sql: "SELECT COUNT(*) FILTER (WHERE \(Documents.deleted) = 0), COUNT(*) FILTER (WHERE \(Documents.deleted) = 1), "
                    + "COALESCE(SUM(LENGTH(CAST(\(Documents.body) AS BLOB))) FILTER (WHERE \(Documents.deleted) = 0), 0), "
                    + "COUNT(\(Documents.body)), COALESCE(SUM(LENGTH(\(Documents.tree))), 0), "
                    + "COALESCE(SUM(\(BodySQLFunction.lengthName)(\(Documents.body))) FILTER (WHERE \(Documents.deleted) = 0), 0) "
                    + "FROM \(Documents.table)")
            let others = try Row.fetchOne(
                db, sql: "SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(\(Bodies.body) AS BLOB))), 0) FROM \(Bodies.table)")
            let attachmentBytes = try AttachmentStorage.storedBytes(in: db)
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            let pageCount = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let freePages = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
            let otherBodies: Int = others?[0] ?? 0
            let otherBytes: Int64 = others?[1] ?? 0
            var stats = StorageStats(
                liveDocuments: documents?[0] ?? 0, deletedDocuments: documents?[1] ?? 0,
                revisionBodies: (documents?[3] ?? 0) + otherBodies, otherRevisionBodies: otherBodies,
                liveBodyBytes: documents?[2] ?? 0, otherRevisionBytes: otherBytes, treeBytes: documents?[4] ?? 0,
                attachmentBytes: attachmentBytes,
                fileSize: pageCount * pageSize, walSize: 0, freeBytes: freePages * pageSize, reclaimableBytes: 0,
                structures: try Self.structures(in: db))
            stats.liveBodyJSONBytes = documents?[5] ?? 0
            return stats
        }
        var result = stats
        result.walSize = (try? FileManager.default.attributesOfItem(atPath: walURL.path)[.size] as? Int64) ?? 0
        result.reclaimableBytes = result.freeBytes + (try await compactableBytes())
        return result
    }

    /// Every table and index of the file with the pages it owns, largest first; empty when SQLite was built
    /// without its `dbstat` table.
    private static func structures(in db: Database) throws -> [StorageStructure] {
        let rows: [Row]
        do {
            rows = try Row.fetchAll(
                db,
                sql: "SELECT d.name, COALESCE(s.tbl_name, d.name), s.type = 'index', d.pgsize, d.payload, d.ncell "
                    + "FROM dbstat AS d LEFT JOIN sqlite_schema AS s ON s.name = d.name "
                    + "WHERE d.aggregate = TRUE ORDER BY d.pgsize DESC, d.name")
        } catch {
            return []  // no dbstat: the other figures still stand
        }
        return rows.map {
            StorageStructure(
                name: $0[0], table: $0[1], isIndex: $0[2] ?? false, bytes: $0[3], payloadBytes: $0[4], entries: $0[5])
        }
    }

    /// Bytes of bodies compaction would drop: stored revisions that are no longer leaves. Each document's
    /// tree is decoded once, however many bodies it keeps.
    private func compactableBytes() async throws -> Int64 {
        try await read(.storeUnreadable) { db in
            var bytes: Int64 = 0
            var currentRowID: Int64?
            var leaves: Set<RevisionID> = []
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT \(Bodies.documentRowID), \(Bodies.rev), LENGTH(\(Bodies.body)) FROM \(Bodies.table) "
                    + "ORDER BY \(Bodies.documentRowID)")
            let treeStatement = try db.cachedStatement(
                sql: "SELECT \(Documents.tree) FROM \(Documents.table) WHERE \(Documents.rowID) = ?")
            while let row = try rows.next() {
                let rowID: Int64 = row[0]
                if rowID != currentRowID {
                    currentRowID = rowID
                    let encoded = try Data.fetchOne(treeStatement, arguments: [rowID])
                    leaves = try Set(encoded.map { try RevisionTree(decoding: Array($0)).leaves } ?? [])
                }
                let revText: String = row[1]
                guard let rev = try? RevisionID(parsing: revText) else { continue }
                if !leaves.contains(rev) { bytes += row[2] as Int64 }
            }
            return bytes
        }
    }

    /// Gives free pages back to the file system: `VACUUM` rebuilds the file without them, then the WAL is
    /// checkpointed and truncated. Readers keep reading their snapshot meanwhile (WAL mode); writers wait.
    ///
    /// - Parameter threshold: Vacuums only when at least this fraction of the file is free (0 always).
    /// - Returns: the bytes the file shrank by (0 when below the threshold).
    @discardableResult
    public func reclaimSpace(threshold: Double = 0.1) async throws -> Int64 {
        try await rebuildFile(when: threshold, countingSpaceInsidePages: false)
    }

    /// Rebuilds the file (`VACUUM`) when the space it holds no data in is at least `threshold` of it: free
    /// pages, and, with `countingSpaceInsidePages`, the unused bytes of B-tree pages (`dbstat`), which
    /// writes in key order other than the tables' leave behind (index pages split half full, then fill
    /// slowly). `VACUUM` writes every table and index again in key order, so pages come out nearly full.
    /// - Returns: the bytes the file shrank by (0 when it was not rebuilt).
    func rebuildFile(when threshold: Double, countingSpaceInsidePages: Bool) async throws -> Int64 {
        try lifecycle.requireOpen(database: name)
        let (pageSize, pageCount, unusedBytes) = try await read(.storeUnreadable) { db in
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            var unused = (try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0) * pageSize
            if countingSpaceInsidePages {
                unused += try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(unused), 0) FROM dbstat WHERE aggregate = TRUE") ?? 0
            }
            return (pageSize, try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0, unused)
        }
        guard unusedBytes > 0, pageCount > 0, Double(unusedBytes) / Double(pageCount * pageSize) >= threshold else { return 0 }
        do {
            let after = try await writerGate.run {
                try self.lifecycle.whileOpen(database: self.name) {
                    try self.pool.writeWithoutTransaction { db in
                        try db.execute(sql: "VACUUM")
                        // Not while view maintenance writes (see LogCheckpointer); the next checkpoint copies it then.
                        try self.checkpointer.ifNoOtherWriter { try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                        return try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
                    }
                }
            }
            return max(0, (pageCount - after) * pageSize)
        } catch {
            throw try storeFailure(error, .storeUnwritable, "The store could not give its free space back; nothing was lost.")
        }
    }
}
