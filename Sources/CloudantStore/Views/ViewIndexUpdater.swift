internal import CloudantCore
internal import Foundation
internal import GRDB

/// Brings a view index up to date with the documents, on the maintenance connection
/// (``ViewMaintenance``): CouchDB's `couch_index_updater` and `couch_mrview_updater`.
///
/// - An index with no rows yet is built in one pass: documents are read in one snapshot, mapped in batches
///   and their rows sorted into a private temporary database, then copied in key order (appending to the
///   rows' b-tree instead of rewriting its pages all over) into a table beside the index's, and that table
///   takes the index's place, with the sequence the snapshot had, in one last transaction.
/// - Afterwards it is kept incrementally: the documents changed since its sequence, a batch at a time, each
///   batch's rows replaced and the sequence moved in one transaction.
///
/// Every change to the index's rows commits together with the sequence it brings the index to, so an update
/// that is interrupted (the process killed) leaves the index at its last committed sequence, and the next
/// update goes on from there; a first build that is interrupted leaves it empty (and its part-filled table,
/// which the next build drops).
enum ViewIndexUpdater {
    /// Documents mapped per call into the mapper (and per transaction when kept incrementally).
    static let batchSize = 1000

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
    ///
    /// A first build reads documents through `reader` when given (a connection of its own, opened only then),
    /// so reading and sorting run on two threads.
    @discardableResult
    static func update(
        _ spec: ViewIndexSpec, in connection: DatabaseQueue, reader: (() throws -> DatabaseQueue)? = nil, progress: ViewIndexProgress
    ) throws -> StoredViewIndex {
        var index = try index(for: spec, in: connection)
        try conformReductionBlocks(of: index, to: spec, in: connection)
        let (target, purgeSeq) = try connection.read { db in
            (try SequenceAllocator.latest(in: db), try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db))
        }
        guard index.updateSeq < target || index.purgeSeq != purgeSeq else { return index }
        // Counted only when there is something to do: a query of an up-to-date index reads no more than before.
        let changes = try connection.read { db in try changedDocuments(after: index.updateSeq, through: target, in: db) }
        progress.start(spec.taskName, total: changes)
        defer { progress.finish() }
        let mapper = try spec.makeMapper()
        let encoder = ViewRowEncoder(encodings: spec.encodings, partitioned: spec.partitioned)
        if index.updateSeq == 0, try connection.read({ db in try isEmpty(index.tableName, in: db) }) {
            index = try build(index, spec: spec, mapper: mapper, encoder: encoder, progress: progress, reader: reader?(), in: connection)
        }
        while index.updateSeq < target {
            let documents = try connection.read { db in
                try ViewSourceDocuments.read(
                    after: index.updateSeq, limit: batchSize, includeDesign: spec.includesDesignDocuments,
                    localSeq: spec.includesLocalSequence, form: mapper.documentForm, in: db)
            }
            guard let last = documents.last else {
                // Nothing changed after the index's sequence, yet the database's is higher (a purge removed the
                // document that held it): the index is up to date with it all the same.
                index = try record(index, updateSeq: target, in: connection)
                break
            }
            let mapped = try map(documents, mapper: mapper, encoder: encoder)
            progress.advance(by: documents.count)
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
