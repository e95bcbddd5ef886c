internal import CloudantCore
internal import Foundation
internal import GRDB

/// Brings a view index up to date with the documents, on the maintenance connection
/// (``ViewMaintenance``): CouchDB's `couch_index_updater` and `couch_mrview_updater`.
///
/// - An index with no rows yet is built in one pass: documents are read in one snapshot, mapped in batches
///   and their rows sorted into a temporary table, then stored in key order (appending to the rows' b-tree
///   instead of rewriting its pages all over) in a table beside the index's, a part per transaction, and that
///   table takes the index's place, with the sequence the snapshot had, in one last transaction.
/// - Afterwards it is kept incrementally: the documents changed since its sequence, a batch at a time, each
///   batch's rows replaced and the sequence moved in one transaction.
///
/// Every change to the index's rows commits together with the sequence it brings the index to, so an update
/// that is interrupted (the process killed) leaves the index at its last committed sequence, and the next
/// update goes on from there; a first build that is interrupted leaves it empty (and its part-filled table,
/// which the next build drops).
enum ViewIndexUpdater {
    private typealias Rows = StoreSchema.ViewIndexes.Rows

    /// Documents mapped per call into the mapper (and per transaction when kept incrementally).
    static let batchSize = 1000

    /// Rows a first build stores per transaction: about a tenth of a second of the write lock each.
    static let storedRowsPerTransaction: Int64 = 100_000

    /// The index of `spec`, created when new.
    static func index(for spec: ViewIndexSpec, in connection: DatabaseQueue) throws -> StoredViewIndex {
        if let found = try connection.read({ db in try ViewIndexCatalog.find(signature: spec.signature, in: db) }) { return found }
        return try connection.write { db in
            try ViewIndexCatalog.find(signature: spec.signature, in: db)
                ?? ViewIndexCatalog.create(signature: spec.signature, language: spec.language, definition: spec.definition, in: db)
        }
    }

    /// Brings the index up to the documents' current sequence, reporting how far it is to `progress` (as
    /// `couch_mrview_updater` reports to `couch_task_status`): the documents changed since the index's
    /// sequence, and how many of them are mapped.
    @discardableResult
    static func update(_ spec: ViewIndexSpec, in connection: DatabaseQueue, progress: ViewIndexProgress? = nil) throws -> StoredViewIndex {
        var index = try index(for: spec, in: connection)
        try conformReductionBlocks(of: index, to: spec, in: connection)
        let (target, purgeSeq, changes) = try connection.read { db in
            let target = try SequenceAllocator.latest(in: db)
            return (
                target, try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db),
                try changedDocuments(after: index.updateSeq, through: target, in: db)
            )
        }
        guard index.updateSeq < target || index.purgeSeq != purgeSeq else { return index }
        progress?.start(spec.taskName, total: changes)
        defer { progress?.finish() }
        let mapper = try spec.makeMapper()
        let encoder = ViewRowEncoder(encodings: spec.encodings, partitioned: spec.partitioned)
        if index.updateSeq == 0, try connection.read({ db in try isEmpty(index.tableName, in: db) }) {
            index = try build(index, spec: spec, mapper: mapper, encoder: encoder, progress: progress, in: connection)
        }
        while index.updateSeq < target {
            let documents = try connection.read { db in
                try ViewSourceDocuments.changed(
                    after: index.updateSeq, limit: batchSize, includeDesign: spec.includesDesignDocuments,
                    localSeq: spec.includesLocalSequence, in: db)
            }
            guard let last = documents.last else {
                // Nothing changed after the index's sequence, yet the database's is higher (a purge removed the
                // document that held it): the index is up to date with it all the same.
                index = try record(index, updateSeq: target, in: connection)
                break
            }
            let mapped = try map(documents, mapper: mapper, encoder: encoder)
            progress?.advance(by: documents.count)
            index = try connection.write { db in
                let purged = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db) != index.purgeSeq
                let kept = purged ? try existing(mapped, in: db) : mapped
                try ViewIndexTable.apply(kept, to: index.tableName, reductions: spec.reductions, in: db)
                let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
                try ViewIndexCatalog.setProgress(index, updateSeq: last.seq, purgeSeq: purgeSeq, in: db)
                var updated = index
                updated.updateSeq = last.seq
                updated.purgeSeq = purgeSeq
                return updated
            }
        }
        if index.purgeSeq != purgeSeq { index = try record(index, updateSeq: index.updateSeq, in: connection) }
        return index
    }

    /// The first build: every document mapped in one snapshot and its rows sorted, then stored in key order.
    private static func build(
        _ index: StoredViewIndex, spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder,
        progress: ViewIndexProgress?, in connection: DatabaseQueue
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
            let (snapshotSeq, startPurgeSeq, emitted) = try sort(spec: spec, mapper: mapper, encoder: encoder, progress: progress, in: db)
            // Store them in key order beside the index's table, a part per transaction, so the store's writers
            // never wait long for the build, then put them in the index's place with the snapshot's sequence.
            let table = index.tableName
            let building = ViewIndexTable.building(table)
            try db.inTransaction(.immediate) {
                try ViewIndexTable.startBuilding(table, in: db)
                return .commit
            }
            let sorted = try Int64.fetchOne(db, sql: "SELECT MAX(rowid) FROM temp.view_sorted") ?? 0
            let copy = try db.makeStatement(
                sql: "INSERT INTO main.\(building) (\(Rows.view), \(Rows.key), \(Rows.documentID), \(Rows.duplicate), "
                    + "\(Rows.keyJSON), \(Rows.valueJSON)) SELECT view, key, doc_id, dup, key_json, value_json FROM temp.view_sorted "
                    + "WHERE rowid > ? AND rowid <= ? ORDER BY rowid")
            for first in stride(from: Int64(0), to: sorted, by: Int(storedRowsPerTransaction)) {
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
                var stored = emitted
                if purgeSeq != startPurgeSeq {
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
                try ViewIndexCatalog.setProgress(index, updateSeq: snapshotSeq, purgeSeq: purgeSeq, in: db)
                updated.updateSeq = snapshotSeq
                updated.purgeSeq = purgeSeq
                return .commit
            }
            return updated
        }
    }

    /// Maps the documents of one read snapshot and sorts their rows into `temp.view_sorted` (in key order by
    /// rowid); returns the snapshot's sequence and purge sequence, and per view the rows it emitted and the
    /// sequence of the last document that emitted one. The rows reach SQLite's sorter straight from the mapper
    /// (``ViewBuildRows``); the snapshot holds no write lock, so the store's writers go on.
    private static func sort(
        spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder, progress: ViewIndexProgress?, in db: Database
    ) throws -> (Int64, Int64, [Int: (rows: Int, seq: Int64)]) {
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
        return (snapshotSeq, purgeSeq, source.emitted)
    }

    /// Maps documents and encodes their rows; documents without JSON (deleted, or not mapped) get none.
    static func map(_ documents: [ViewSourceDocument], mapper: any ViewBatchMapper, encoder: ViewRowEncoder) throws -> [MappedDocument] {
        let live = documents.filter { $0.json != nil }
        let emitted = live.isEmpty ? [] : try mapper.map(live)
        var rowsByPosition = emitted.makeIterator()
        return documents.map { document in
            guard document.json != nil, let rows = rowsByPosition.next() else {
                return MappedDocument(id: document.id, seq: document.seq, rows: [])
            }
            return encoder.encode(documentID: document.id, seq: document.seq, emitted: rows)
        }
    }

    /// The mapped documents that still exist (a purge may have removed some since they were read).
    private static func existing(_ documents: [MappedDocument], in db: Database) throws -> [MappedDocument] {
        try documents.filter { try DocumentRecord.fetch(id: $0.id, in: db) != nil }
    }

    /// Makes the index keep reduction blocks for the reduces `spec` has now (a Swift view's reduce can change
    /// without its signature), and recomputes blocks a purge left dirty (it runs no design function); a write
    /// only when there is something to do.
    private static func conformReductionBlocks(of index: StoredViewIndex, to spec: ViewIndexSpec, in connection: DatabaseQueue) throws {
        let current = try connection.read { db in
            try ViewReductionBlocks.match(index.tableName, reductions: spec.reductions, in: db)
                && !ViewReductionBlocks.hasDirty(index.tableName, in: db)
        }
        guard !current else { return }
        try connection.write { db in
            try ViewReductionBlocks.conform(index.tableName, reductions: spec.reductions, in: db)
            try ViewReductionBlocks.settle(index.tableName, reductions: spec.reductions, in: db)
        }
    }

    private static func record(_ index: StoredViewIndex, updateSeq: Int64, in connection: DatabaseQueue) throws -> StoredViewIndex {
        try connection.write { db in
            let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
            try ViewIndexCatalog.setProgress(index, updateSeq: updateSeq, purgeSeq: purgeSeq, in: db)
            var updated = index
            updated.updateSeq = updateSeq
            updated.purgeSeq = purgeSeq
            return updated
        }
    }

    /// How many documents changed after `seq` up to `target`: what an update maps (`total_changes`).
    private static func changedDocuments(after seq: Int64, through target: Int64, in db: Database) throws -> Int {
        try Int.fetchOne(
            db, sql: "SELECT COUNT(*) FROM \(StoreSchema.Documents.table) WHERE \(StoreSchema.Documents.seq) > ? AND \(StoreSchema.Documents.seq) <= ?",
            arguments: [seq, target]) ?? 0
    }

    private static func isEmpty(_ table: String, in db: Database) throws -> Bool {
        try Int.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table))") == 0
    }
}
