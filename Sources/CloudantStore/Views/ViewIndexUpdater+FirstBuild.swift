internal import CSQLite
internal import CloudantCore
internal import Foundation
internal import GRDB

/// A view index's first build (``ViewIndexUpdater``): every document of one read snapshot mapped, its rows
/// sorted as they are mapped and stored beside the index's table a part per transaction, then swapped in.
extension ViewIndexUpdater {
    private typealias Rows = StoreSchema.ViewIndexes.Rows

    /// The first build: every document mapped in one snapshot and its rows sorted, then stored in key order.
    ///
    /// The rows go from SQLite's sorter straight into a table beside the index's, through a second
    /// connection to the store's file that writes them a part per transaction while the maintenance
    /// connection still holds its snapshot (SQLite cannot write on a connection whose read began before
    /// another writer's commit). Sorted into a temporary table first and copied from it, each row was written
    /// and read once more: over a million rows, about a fifth of a Swift view's build.
    static func build(
        _ index: StoredViewIndex, spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder,
        progress: ViewIndexProgress, in connection: DatabaseQueue
    ) throws -> StoredViewIndex {
        let writer = try rowWriter(beside: connection)
        defer { try? writer.close() }
        try writer.inDatabase { db in
            try db.inTransaction(.immediate) {
                try ViewIndexTable.startBuilding(index.tableName, in: db)
                return .commit
            }
        }
        return try connection.inDatabase { db in
            // The sort holds a page cache's worth of rows in memory before it writes a run out: 2 MB instead of
            // the maintenance connection's 8 MB keeps a build's peak about 12 MB lower without slowing it, as
            // measured for the JSON index builds.
            let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
            try db.execute(sql: "PRAGMA cache_size = -2048")
            defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
            // A Swift view's sorts run with SQLite's helper thread, which sorts and writes full runs while the
            // statement reads on (over 1M rows: the key sort 3.3 → 2.3 s, the index 1.1 → 0.8 s). A JavaScript
            // view's process holds the engine too, and the thread's runs took its peak past 100 MB.
            let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
            if spec.language == "swift" { try db.execute(sql: "PRAGMA threads = 2") }
            defer { try? db.execute(sql: "PRAGMA threads = \(threads)") }
            // Map every document of one snapshot and store its rows in key order beside the index's table, so
            // the store's writers never wait long for the build; then put them in the index's place with the
            // snapshot's sequence.
            let sorted = try sortAndStore(index, spec: spec, mapper: mapper, encoder: encoder, progress: progress, through: writer, in: db)
            return try finish(index, sorted: sorted, spec: spec, in: db)
        }
    }

    /// A second connection to the store's file, configured as the maintenance connection is (its cipher
    /// key included), with a small page cache: it only appends rows.
    private static func rowWriter(beside connection: DatabaseQueue) throws -> DatabaseQueue {
        let writer = try DatabaseQueue(path: connection.path, configuration: connection.configuration)
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA mmap_size = 0")
            try db.execute(sql: "PRAGMA cache_size = -2048")
        }
        return writer
    }

    /// Indexes the stored rows by document, then, in one last transaction, puts their table in the index's
    /// place with the snapshot's sequence (and the views' counts and stored reductions). A purge committed
    /// since the snapshot takes its documents' rows out first; the views keep the sequences the snapshot
    /// gave them, as CouchDB's purge leaves a view's update sequence where it was.
    private static func finish(
        _ index: StoredViewIndex, sorted: SortedRows, spec: ViewIndexSpec, in db: Database
    ) throws -> StoredViewIndex {
        let table = index.tableName
        let building = ViewIndexTable.building(table)
        try db.inTransaction(.immediate) {
            try ViewIndexTable.indexBuilding(table, in: db)
            return .commit
        }
        var updated = index
        try db.inTransaction(.immediate) {
            let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
            var stored = sorted.emitted
            if purgeSeq != sorted.purgeSeq {
                // A purge since the snapshot removed documents whose rows are stored already.
                try db.execute(
                    sql: "DELETE FROM main.\(building) WHERE \(Rows.documentID) NOT IN "
                        + "(SELECT \(StoreSchema.Documents.id) FROM main.\(StoreSchema.Documents.table))")
                var counts: [Int: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT \(Rows.view), COUNT(*) FROM main.\(building) GROUP BY \(Rows.view)") {
                    counts[row[0]] = row[1]
                }
                for (view, state) in stored { stored[view] = (counts[view] ?? 0, state.seq) }
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

    /// What mapping a snapshot stored: the snapshot's sequence and purge sequence, and per view the rows it
    /// emitted and the sequence of the last document that emitted one.
    private struct SortedRows {
        var snapshotSeq: Int64
        var purgeSeq: Int64
        var emitted: [Int: (rows: Int, seq: Int64)]
    }

    /// Maps the documents of one read snapshot, sorts their rows and stores them in key order in the
    /// building table through `writer`, ``storedRowsPerTransaction`` per transaction. The rows reach SQLite's
    /// sorter straight from the mapper (``ViewBuildRows``) and leave it straight for the writer; the snapshot
    /// holds no write lock, so the store's writers go on, and the writer takes it only once the sorter hands
    /// out its first row, when every document is mapped.
    private static func sortAndStore(
        _ index: StoredViewIndex, spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder,
        progress: ViewIndexProgress, through writer: DatabaseQueue, in db: Database
    ) throws -> SortedRows {
        try db.execute(sql: "BEGIN DEFERRED")
        var finished = false
        defer { if !finished { try? db.execute(sql: "ROLLBACK") } }
        let snapshotSeq = try SequenceAllocator.latest(in: db)
        let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
        let source = ViewBuildRows.Source(db: db, spec: spec, mapper: mapper, encoder: encoder, progress: progress)
        let columns = "\(Rows.view), \(Rows.key), \(Rows.documentID), \(Rows.duplicate), \(Rows.keyJSON), \(Rows.valueJSON)"
        try ViewBuildRows.withRows(source, in: db) {
            let sorted = try db.makeStatement(
                sql: "SELECT view, key, doc_id, dup, key_json, value_json FROM \(ViewBuildRows.tableName) "
                    + "ORDER BY view, key, doc_id, dup")
            try writer.inDatabase { target in
                let insert = try target.makeStatement(
                    sql: "INSERT INTO main.\(ViewIndexTable.building(index.tableName)) (\(columns)) VALUES (?, ?, ?, ?, ?, ?)")
                try copyRows(from: sorted, sortedOn: db, into: insert, on: target)
            }
        }
        try db.execute(sql: "COMMIT")
        finished = true
        return SortedRows(snapshotSeq: snapshotSeq, purgeSeq: purgeSeq, emitted: source.emitted)
    }

    /// Steps `sorted` to its end, inserting each row through `insert` (their columns in the same order), a
    /// part of ``storedRowsPerTransaction`` rows per transaction of `target`. The values pass from one
    /// statement to the other as SQLite holds them.
    private static func copyRows(from sorted: Statement, sortedOn db: Database, into insert: Statement, on target: Database) throws {
        let source = sorted.sqliteStatement
        let destination = insert.sqliteStatement
        let columns = sqlite3_column_count(source)
        var inTransaction = false
        defer { if inTransaction { try? target.execute(sql: "ROLLBACK") } }
        var stored: Int64 = 0
        while true {
            let step = sqlite3_step(source)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: step), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
            }
            if !inTransaction {
                try target.execute(sql: "BEGIN IMMEDIATE")
                inTransaction = true
            }
            for column in 0..<columns {
                sqlite3_bind_value(destination, column + 1, sqlite3_column_value(source, column))
            }
            let inserted = sqlite3_step(destination)
            sqlite3_reset(destination)
            guard inserted == SQLITE_DONE else {
                throw DatabaseError(
                    resultCode: ResultCode(rawValue: inserted), message: String(cString: sqlite3_errmsg(target.sqliteConnection)))
            }
            stored += 1
            if stored % storedRowsPerTransaction == 0 {
                try target.execute(sql: "COMMIT")
                inTransaction = false
            }
        }
        if inTransaction {
            try target.execute(sql: "COMMIT")
            inTransaction = false
        }
    }
}
