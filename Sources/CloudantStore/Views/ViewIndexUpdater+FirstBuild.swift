internal import CloudantCore
internal import Foundation
internal import GRDB

/// A view index's first build (``ViewIndexUpdater``): every document of one read snapshot mapped, its rows
/// sorted as they are mapped, then stored beside the index's table a part per transaction and swapped in.
extension ViewIndexUpdater {
    private typealias Rows = StoreSchema.ViewIndexes.Rows

    /// The first build: every document mapped in one snapshot and its rows sorted, then stored in key order.
    static func build(
        _ index: StoredViewIndex, spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder,
        progress: ViewIndexProgress, in connection: DatabaseQueue
    ) throws -> StoredViewIndex {
        try connection.inDatabase { db in
            // Each of the build's two sorts (the rows by key, then the rows by document id for the index) holds a
            // page cache's worth of rows in memory before it writes a run out: 2 MB instead of the maintenance
            // connection's 8 MB keeps a build's peak about 12 MB lower without slowing it, as measured for the
            // JSON index builds.
            let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
            try db.execute(sql: "PRAGMA cache_size = -2048")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
            // A Swift view's sorts run with SQLite's helper thread, which sorts and writes full runs while the
            // statement reads on (over 1M rows: the key sort 3.3 → 2.3 s, the index 1.1 → 0.8 s). A JavaScript
            // view's process holds the engine too, and the thread's runs took its peak past 100 MB.
            let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
            if spec.language == "swift" { try db.execute(sql: "PRAGMA threads = 2") }
            defer { try? db.execute(sql: "PRAGMA threads = \(threads)") }
            try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS view_sorted (\(ViewBuildRows.columnDefinitions))")
            try db.execute(sql: "DELETE FROM temp.view_sorted")
            defer { try? db.execute(sql: "DELETE FROM temp.view_sorted") }
            // Map every document of one snapshot, its rows sorted into the temporary table.
            let sorted = try sort(spec: spec, mapper: mapper, encoder: encoder, progress: progress, in: db)
            // Store them in key order beside the index's table, a part per transaction, so the store's writers
            // never wait long for the build, then put them in the index's place with the snapshot's sequence.
            return try store(sorted, into: index, spec: spec, in: db)
        }
    }

    /// Stores the sorted rows of `temp.view_sorted` beside the index's table, ``storedRowsPerTransaction`` per
    /// transaction, indexes them by document, then, in one last transaction, puts that table in the index's
    /// place with the snapshot's sequence (and the views' counts and stored reductions). A purge committed
    /// since the snapshot takes its documents' rows out first.
    private static func store(
        _ sorted: SortedRows, into index: StoredViewIndex, spec: ViewIndexSpec, in db: Database
    ) throws -> StoredViewIndex {
        let table = index.tableName
        let building = ViewIndexTable.building(table)
        try db.inTransaction(.immediate) {
            try ViewIndexTable.startBuilding(table, in: db)
            return .commit
        }
        let lastRow = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM temp.view_sorted") ?? 0
        let copy = try db.makeStatement(
            sql: "INSERT INTO main.\(building) (\(Rows.view), \(Rows.key), \(Rows.documentID), \(Rows.duplicate), "
                + "\(Rows.keyJSON), \(Rows.valueJSON)) SELECT view, key, doc_id, dup, key_json, value_json FROM temp.view_sorted "
                + "WHERE rowid > ? AND rowid <= ? ORDER BY rowid")
        for first in stride(from: Int64(0), to: lastRow, by: Int(storedRowsPerTransaction)) {
            try db.inTransaction(.immediate) {
                try copy.execute(arguments: [first, first + storedRowsPerTransaction])
                return .commit
            }
        }
        try db.inTransaction(.immediate) {
            try ViewIndexTable.indexBuilding(table, in: db)
            return .commit
        }
        var updated = index
        try db.inTransaction(.immediate) {
            let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
            var stored = sorted.emitted
            if purgeSeq != sorted.purgeSeq {
                // A purge since the snapshot removed documents whose rows are sorted already.
                let gone = "doc_id NOT IN (SELECT \(StoreSchema.Documents.id) FROM main.\(StoreSchema.Documents.table))"
                try db.execute(sql: "DELETE FROM temp.view_sorted WHERE \(gone)")
                try db.execute(sql: "DELETE FROM main.\(building) WHERE \(gone)")
                stored = [:]
                for row in try Row.fetchAll(db, sql: "SELECT view, COUNT(*), MAX(seq) FROM temp.view_sorted GROUP BY view") {
                    stored[row[0]] = (row[1], row[2])
                }
            }
            try ViewIndexTable.finishBuilding(table, in: db)
            // Rows loaded in bulk bypass the blocks' bookkeeping: they are cut from the loaded rows.
            try ViewReductionBlocks.recutAll(table, reductions: spec.reductions, in: db)
            for (view, state) in stored.sorted(by: { $0.key < $1.key }) {
                try ViewIndexTable.adjust(table, view: view, rows: state.rows, seq: state.seq, in: db)
            }
            try ViewIndexCatalog.setProgress(index, updateSeq: sorted.snapshotSeq, purgeSeq: purgeSeq, in: db)
            updated.updateSeq = sorted.snapshotSeq
            updated.purgeSeq = purgeSeq
            return .commit
        }
        return updated
    }

    /// What mapping a snapshot left in `temp.view_sorted`: the snapshot's sequence and purge sequence, and per
    /// view the rows it emitted and the sequence of the last document that emitted one.
    private struct SortedRows {
        var snapshotSeq: Int64
        var purgeSeq: Int64
        var emitted: [Int: (rows: Int, seq: Int64)]
    }

    /// Maps the documents of one read snapshot and sorts their rows into `temp.view_sorted` (in key order by
    /// rowid). The rows reach SQLite's sorter straight from the mapper (``ViewBuildRows``); the snapshot holds
    /// no write lock, so the store's writers go on.
    private static func sort(
        spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder, progress: ViewIndexProgress, in db: Database
    ) throws -> SortedRows {
        try db.execute(sql: "BEGIN DEFERRED")
        var finished = false
        defer { if !finished { try? db.execute(sql: "ROLLBACK") } }
        let snapshotSeq = try SequenceAllocator.latest(in: db)
        let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
        let source = ViewBuildRows.Source(db: db, spec: spec, mapper: mapper, encoder: encoder, progress: progress)
        try ViewBuildRows.withRows(source, in: db) {
            try db.execute(
                sql: "INSERT INTO temp.view_sorted SELECT * FROM \(ViewBuildRows.tableName) "
                    + "ORDER BY view, key, doc_id, dup")
        }
        try db.execute(sql: "COMMIT")
        finished = true
        return SortedRows(snapshotSeq: snapshotSeq, purgeSeq: purgeSeq, emitted: source.emitted)
    }
}
