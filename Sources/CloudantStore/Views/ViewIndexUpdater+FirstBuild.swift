internal import CloudantCore
internal import Foundation
internal import GRDB

/// A view index's first build (``ViewIndexUpdater``): every document of one read snapshot mapped, its rows
/// sorted as they are mapped into a private database, then copied beside the index's table, indexed by
/// document and swapped in.
extension ViewIndexUpdater {
    private typealias Rows = StoreSchema.ViewIndexes.Rows

    /// The private temporary database a first build sorts its rows into (SQLite deletes it when it is detached,
    /// where dropping a table of a million rows walks every page of it: a tenth of a second), and the table there,
    /// of the rows table's shape exactly, so SQLite copies it into the index's table record by record, without
    /// decoding a row (its transfer optimisation). In an encrypted store it is in memory, as temporary tables
    /// are there (`temp_store = MEMORY`).
    private static let sortSchema = "view_build"
    private static let sortedTable = "\(sortSchema).view_sorted"

    /// The first build: every document mapped in one snapshot and its rows sorted, then stored in key order.
    static func build(
        _ index: StoredViewIndex, spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder,
        progress: ViewIndexProgress, reader: DatabaseQueue?, in connection: DatabaseQueue
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
            // A build that failed inside a transaction could not detach its database.
            if try Row.fetchAll(db, sql: "PRAGMA database_list").contains(where: { $0["name"] == sortSchema }) {
                try db.execute(sql: "DETACH DATABASE \(sortSchema)")
            }
            try db.execute(sql: "ATTACH DATABASE '' AS \(sortSchema)")
            try db.execute(sql: "PRAGMA \(sortSchema).journal_mode = OFF; PRAGMA \(sortSchema).synchronous = OFF")
            defer { try? db.execute(sql: "DETACH DATABASE \(sortSchema)") }
            try ViewIndexTable.createRows(sortedTable, in: db)
            // Map every document of one snapshot, its rows sorted into the private database; the store's writers
            // go on meanwhile.
            let sorted = try sort(spec: spec, mapper: mapper, encoder: encoder, progress: progress, reader: reader, in: db)
            // Then store them beside the index's table and put them in its place with the snapshot's sequence.
            return try store(sorted, into: index, spec: spec, in: db)
        }
    }

    /// Copies the sorted rows of ``sortedTable`` beside the index's table in one transaction, indexes them by
    /// document in a second, then, in a last one, puts that table in the index's place with the snapshot's
    /// sequence (and the views' counts and stored reductions). A purge committed since the snapshot takes its
    /// documents' rows out first.
    ///
    /// The copy takes SQLite's write lock for about a quarter of a second per million rows, the index about
    /// two fifths: the store's writers wait that long at most. (The rows were copied a hundred thousand per
    /// transaction before, decoded and encoded again: twice as long in all, for shorter waits than the index's
    /// transaction, which was the longest all the same.)
    private static func store(
        _ sorted: SortedRows, into index: StoredViewIndex, spec: ViewIndexSpec, in db: Database
    ) throws -> StoredViewIndex {
        let table = index.tableName
        let building = ViewIndexTable.building(table)
        try db.inTransaction(.immediate) {
            try ViewIndexTable.startBuilding(table, in: db)
            try db.execute(sql: "INSERT INTO main.\(building) SELECT * FROM \(sortedTable)")
            return .commit
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
                try db.execute(sql: "DELETE FROM \(sortedTable) WHERE \(gone)")
                try db.execute(sql: "DELETE FROM main.\(building) WHERE \(gone)")
                stored = [:]
                for row in try Row.fetchAll(db, sql: "SELECT view, COUNT(*), MAX(\(StoreSchema.Documents.seq)) FROM \(sortedTable) JOIN main.\(StoreSchema.Documents.table) ON \(StoreSchema.Documents.id) = doc_id GROUP BY view") {
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

    /// What mapping a snapshot left in ``sortedTable``: the snapshot's sequence and purge sequence, and per
    /// view the rows it emitted and the sequence of the last document that emitted one.
    private struct SortedRows {
        var snapshotSeq: Int64
        var purgeSeq: Int64
        var emitted: [Int: (rows: Int, seq: Int64)]
    }

    /// Maps the documents of one read snapshot and sorts their rows into ``sortedTable`` (in key order). The
    /// rows reach SQLite's sorter straight from the mapper (``ViewBuildRows``); the snapshot holds no write
    /// lock, so the store's writers go on. A mapper that maps document by document in Swift has the snapshot
    /// read and mapped through `reader` on a thread of its own (``ViewBuildPipeline``) while this connection
    /// sorts.
    private static func sort(
        spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder, progress: ViewIndexProgress,
        reader: DatabaseQueue?, in db: Database
    ) throws -> SortedRows {
        let insert = "INSERT INTO \(sortedTable) SELECT * FROM \(ViewBuildRows.tableName) ORDER BY view, key, doc_id, dup"
        if let reader, let mapper = mapper as? any ViewDocumentMapper {
            let pipeline = ViewBuildPipeline(mapper: mapper, encoder: encoder, progress: progress)
            pipeline.start(reader: reader, spec: spec)
            defer { pipeline.stop() }
            try ViewBuildRows.withRows(pipeline, in: db) { try db.execute(sql: insert) }
            pipeline.stop()
            return SortedRows(snapshotSeq: pipeline.snapshotSeq, purgeSeq: pipeline.purgeSeq, emitted: pipeline.emitted)
        }
        try db.execute(sql: "BEGIN DEFERRED")
        var finished = false
        defer { if !finished { try? db.execute(sql: "ROLLBACK") } }
        let snapshotSeq = try SequenceAllocator.latest(in: db)
        let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
        let source = ViewBuildRows.Source(db: db, spec: spec, mapper: mapper, encoder: encoder, progress: progress)
        try ViewBuildRows.withRows(source, in: db) { try db.execute(sql: insert) }
        try db.execute(sql: "COMMIT")
        finished = true
        return SortedRows(snapshotSeq: snapshotSeq, purgeSeq: purgeSeq, emitted: source.emitted)
    }
}
