internal import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    /// Rows rewritten per transaction by ``recompressBodies(progress:)``.
    static let recompressionBatchSize = 1_000

    /// Brings every stored body to the store's current form: trains a dictionary for each kind with enough
    /// live documents and none yet, then rewrites bodies stored as JSON text, or compressed without their
    /// kind's newest dictionary, in batches of 1,000 rows, each batch its own
    /// transaction. A run that is stopped (even by `kill -9`) keeps every batch it committed and the next
    /// run goes on from what is left: a body is only ever replaced by the same JSON in another form.
    ///
    /// A store opened with ``StoreOptions/compressesBodies`` off rewrites compressed bodies as JSON text
    /// instead, for tools that read the SQLite file themselves. Revisions, sequences and indexes are
    /// untouched: the documents do not change, only how their bytes are kept.
    /// - Parameter progress: Called after each committed batch with the bodies rewritten so far.
    /// - Returns: How many bodies were rewritten.
    @discardableResult
    public func recompressBodies(progress: (@Sendable (Int) -> Void)? = nil) async throws -> Int {
        var rewritten = bodyCodec.compresses ? try await trainMissingDictionaries() : 0
        if rewritten > 0 { progress?(rewritten) }
        for table in [BodyTable.documents, .revisionBodies] {
            var after: Int64 = 0
            while true {
                let start = after
                let batch = try await write(.storeUnwritable) { db in try Self.recompress(table, after: start, in: db) }
                rewritten += batch.rewritten
                if batch.rewritten > 0 { progress?(rewritten) }
                guard let last = batch.lastRowID else { break }
                after = last
            }
        }
        return rewritten
    }

    /// Trains a dictionary for every kind that has ``BodyDictionaryTraining/compactionThreshold`` live
    /// documents and no dictionary yet (a store written before compression, or by writes too few per open to train).
    /// Returns how many bodies the trainings rewrote (see ``BodyDictionaryTraining/train(kind:in:)``).
    private func trainMissingDictionaries() async throws -> Int {
        let kinds = try await read(.storeUnreadable) { db in
            try Row.fetchAll(
                db,
                sql: "SELECT COALESCE(\(StoreSchema.DocumentKinds.name(of: "kind")), ''), COUNT(*) FROM documents "
                    + "WHERE deleted = 0 AND body IS NOT NULL "
                    + "GROUP BY kind HAVING COUNT(*) >= ?",
                arguments: [BodyDictionaryTraining.compactionThreshold]
            ).map { row -> String in row[0] }
        }
        let codec = bodyCodec
        var rewritten = 0
        for kind in kinds where codec.dictionary(forKind: kind) == nil {
            let trained = try await write(.storeUnwritable) { db in try BodyDictionaryTraining.train(kind: kind, in: db) }
            guard let trained else { continue }
            codec.adopt(trained.dictionary)
            rewritten += trained.rewritten
        }
        return rewritten
    }

    /// The two tables that hold bodies, with what a row's kind and key are there.
    enum BodyTable {
        case documents, revisionBodies

        /// `rowid, kind, body` of the rows after a row id, in row id order.
        var selectSQL: String {
            switch self {
            case .documents:
                "SELECT rowid, \(StoreSchema.DocumentKinds.name(of: "kind")), body FROM documents WHERE rowid > ? AND body IS NOT NULL "
                    + "ORDER BY rowid LIMIT ?"
            case .revisionBodies:
                "SELECT r.rowid, \(StoreSchema.DocumentKinds.name(of: "d.kind")), r.body FROM revision_bodies r "
                    + "JOIN documents d ON d.rowid = r.doc_rowid "
                    + "WHERE r.rowid > ? ORDER BY r.rowid LIMIT ?"
            }
        }

        var updateSQL: String {
            switch self {
            case .documents: "UPDATE documents SET body = ? WHERE rowid = ?"
            case .revisionBodies: "UPDATE revision_bodies SET body = ? WHERE rowid = ?"
            }
        }
    }

    /// Rewrites the bodies of one batch of rows that are not in the codec's current form; returns how many
    /// it rewrote and the batch's last row id (nil once no rows are left).
    private static func recompress(_ table: BodyTable, after: Int64, in db: Database) throws -> (rewritten: Int, lastRowID: Int64?) {
        let codec = BodyCodec.of(db)
        let connection = db.sqliteConnection
        let rows = try Row.fetchAll(db, sql: table.selectSQL, arguments: [after, recompressionBatchSize])
        var rewritten = 0
        let update = try db.cachedStatement(sql: table.updateSQL)
        for row in rows {
            let kind: String? = row[1]
            let stored = Array(row[2] as Data)
            guard !codec.isCurrent(stored, kind: kind) else { continue }
            let json = try codec.decode(stored, connection: connection)
            // Not a write: a rewrite counts toward no kind's training (compaction trained what it could).
            let frame = codec.encode(json, kind: kind, countingTowardTraining: false)
            guard (frame ?? json) != stored else { continue }
            // A frame is a blob, JSON is text (as the writes store them).
            let replacement = frame.map { Data($0).databaseValue } ?? String(decoding: json, as: UTF8.self).databaseValue
            try update.execute(arguments: [replacement, row[0] as Int64])
            rewritten += 1
        }
        return (rewritten, rows.last.map { $0[0] })
    }
}
