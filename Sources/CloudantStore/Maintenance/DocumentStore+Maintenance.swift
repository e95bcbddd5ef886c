public import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    private typealias Documents = StoreSchema.Documents
    private typealias Bodies = StoreSchema.RevisionBodies

    /// Counts and sequences, as CouchDB's database info.
    public func info() async throws -> DatabaseInfo {
        try await read(.storeUnreadable) { db in
            let updateSeq = try SequenceAllocator.latest(in: db)
            let purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
            let counts = try self.documentCounts.counts(at: updateSeq, purgeSeq: purgeSeq, in: db)
            let pageCount = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 0
            let shards = try StoreInfo.integer(StoreSchema.StoreInfo.shardCount, in: db)
            var info = DatabaseInfo(
                name: self.name, documentCount: counts.live, deletedDocumentCount: counts.deleted, updateSeq: updateSeq,
                purgeSeq: purgeSeq, fileSize: pageCount * pageSize, activeSize: counts.activeSize,
                partitioned: try Self.isPartitioned(db),
                shardCount: shards > 0 ? Int(shards) : 1)
            info.instanceStartTime = String(try StoreInfo.integer(StoreSchema.StoreInfo.createdAt, in: db))
            info.uuid = self.uuid
            return info
        }
    }

    /// Records the shard count a client created the database with (CouchDB's `?q=`), which
    /// ``DatabaseInfo/shardCount`` reports. A store is one file whatever the count.
    /// - Throws: `CloudantError` `.invalidInput` when `count` is below 1.
    public func setShardCount(_ count: Int) async throws {
        guard count >= 1 else {
            throw CloudantError(.invalidInput, "The `q` value should be a positive integer.", context: .init(field: "q"))
        }
        try await write(.storeUnwritable) { db in try StoreInfo.set(StoreSchema.StoreInfo.shardCount, to: count, in: db) }
    }

    /// SQLite's `PRAGMA integrity_check`: `["ok"]` for a sound file, else the problems it found. A file
    /// damaged enough that SQLite stops the check part-way ("database disk image is malformed") gives the
    /// problems found so far and SQLite's error last, rather than throwing it.
    public func integrityCheck() async throws -> [String] {
        // Outside a transaction: a check that SQLite stops leaves a read transaction that cannot commit.
        try await read(.storeUnreadable, inTransaction: false) { db in
            var problems: [String] = []
            do {
                let rows = try String.fetchCursor(db, sql: "PRAGMA integrity_check")
                while let row = try rows.next() { problems.append(row) }
            } catch let error as DatabaseError {
                problems.append(error.message ?? "\(error.resultCode)")
            }
            return problems
        }
    }

    /// The number of revisions each document's history keeps (`_revs_limit`, default 1000).
    public func revsLimit() async throws -> Int {
        try await read(.storeUnreadable) { db in Int(try StoreInfo.integer(StoreSchema.StoreInfo.revsLimit, in: db)) }
    }

    /// Sets `_revs_limit`; histories are stemmed to it on their next write.
    /// - Throws: `CloudantError` `.invalidInput` when `limit` is below 1.
    public func setRevsLimit(_ limit: Int) async throws {
        guard limit >= 1 else {
            throw CloudantError(.invalidInput, "revs_limit must be a positive integer.", context: .init(field: "revs_limit"))
        }
        try await write(.storeUnwritable) { db in try StoreInfo.set(StoreSchema.StoreInfo.revsLimit, to: limit, in: db) }
    }

    /// For each document, the revisions this store lacks and the leaves that may be their ancestors
    /// (`_revs_diff`). Documents with nothing missing are left out.
    public func revsDiff(_ request: [String: [String]]) async throws -> [String: RevisionDiff] {
        let parsed = try request.mapValues { revs in try revs.map { try RevisionID(parsing: $0) } }
        return try await read(.storeUnreadable) { db in
            var answer: [String: RevisionDiff] = [:]
            for (id, revs) in parsed {
                let tree = try DocumentRecord.fetchTree(id: id, in: db) ?? RevisionTree()
                let diff = tree.revsDiff(revs)
                guard !diff.missing.isEmpty else { continue }
                answer[id] = diff
            }
            return answer
        }
    }

    /// Drops the bodies of revisions that are no longer leaves, keeping every tree intact, deletes
    /// attachment bytes no kept revision refers to, brings the bodies left to the store's current stored
    /// form (``recompressBodies(progress:)``), and rebuilds the file when a twentieth of it or more holds no
    /// data (free pages, and the unused bytes of half-full index pages), so the file shrinks, as CouchDB's
    /// compaction copies a database into a new file.
    /// Returns how many bodies were dropped.
    @discardableResult
    public func compact() async throws -> Int {
        try await compact(progress: nil).revisionsCompacted
    }

    /// ``compact()``, telling how far the body rewrite has come after each committed batch.
    /// - Parameter progress: Called with the bodies rewritten so far (see ``recompressBodies(progress:)``).
    public func compact(progress: (@Sendable (Int) -> Void)?) async throws -> CompactionSummary {
        let dropped = try await dropOldBodies()
        let recompressed = try await recompressBodies(progress: progress)
        let reclaimed = try await rebuildFile(when: Self.compactionRebuildThreshold, countingSpaceInsidePages: true)
        return CompactionSummary(revisionsCompacted: dropped, bodiesRecompressed: recompressed, bytesReclaimed: reclaimed)
    }

    /// The fraction of the file holding no data from which compaction rebuilds it: below it, rewriting the
    /// whole file (twice, through the log) would give back too little to be worth the writes.
    static let compactionRebuildThreshold = 0.05

    private func dropOldBodies() async throws -> Int {
        try await write(.storeUnwritable) { db in
            let rowIDs = try Int64.fetchAll(db, sql: "SELECT DISTINCT \(Bodies.documentRowID) FROM \(Bodies.table)")
            var dropped = 0
            for rowID in rowIDs {
                guard
                    let row = try Row.fetchOne(
                        db, sql: "SELECT \(DocumentRecord.selectColumns) FROM \(Documents.table) WHERE \(Documents.rowID) = ?",
                        arguments: [rowID])
                else { continue }
                var record = try DocumentRecord(row: row, in: db)
                let released = record.tree.markBodiesMissingExceptLeaves()
                guard !released.isEmpty else { continue }
                try RevisionBody.delete(documentRowID: rowID, revs: released, in: db)
                dropped += released.count
                try record.save(in: db)
            }
            _ = try AttachmentStorage.deleteUnreferenced(in: db)
            return dropped
        }
    }

    /// Removes revisions completely, as if they had never been written (`_purge`). A document whose
    /// every leaf is purged disappears. Returns the revisions purged per document.
    @discardableResult
    public func purge(_ request: [String: [String]]) async throws -> [String: [String]] {
        let parsed = try request.mapValues { revs in try revs.map { try RevisionID(parsing: $0) } }
        let makeID = options.makeDocumentID
        let now = options.now
        let cache = indexCache
        let purged = try await write(.storeUnwritable) { db in
            try Self.purge(parsed, makeDocumentID: makeID, now: now, indexCache: cache, in: db)
        }
        notifier.publish()
        return purged
    }

    /// The purge requests kept (`_purged_infos`): document id and the revisions named, oldest first.
    public func purgedInfos() async throws -> [(id: String, revs: [String])] {
        try await read(.storeUnreadable) { db in try PurgeInfoRecord.all(in: db) }
    }

    /// How many purge requests are kept (`_purged_infos_limit`, default 1000).
    public func purgedInfosLimit() async throws -> Int {
        try await read(.storeUnreadable) { db in try Self.purgedInfosLimit(in: db) }
    }

    /// Sets `_purged_infos_limit`; older purge infos beyond it are dropped at once.
    /// - Throws: `CloudantError` `.invalidInput` when `limit` is below 1.
    public func setPurgedInfosLimit(_ limit: Int) async throws {
        guard limit >= 1 else {
            throw CloudantError(
                .invalidInput, "purged_infos_limit must be a positive integer.", context: .init(field: "purged_infos_limit"))
        }
        try await write(.storeUnwritable) { db in
            try StoreInfo.set(StoreSchema.StoreInfo.purgedInfosLimit, to: limit, in: db)
            try PurgeInfoRecord.trim(keeping: limit, in: db)
        }
    }

    static func purgedInfosLimit(in db: Database) throws -> Int {
        let stored = try StoreInfo.integer(StoreSchema.StoreInfo.purgedInfosLimit, in: db)
        return stored > 0 ? Int(stored) : 1000
    }

    /// Documents purged per transaction by expiry and tombstone retention, so a large backlog never holds
    /// the writer for long.
    static let purgeBatchSize = 500

    /// Purges `revisions` by document id in the caller's write transaction, as ``purge(_:)`` describes;
    /// returns the leaves purged per document.
    static func purge(
        _ parsed: [String: [RevisionID]], makeDocumentID makeID: @escaping @Sendable () -> String,
        now: @escaping @Sendable () -> Date, indexCache cache: IndexCatalogCache, in db: Database
    ) throws -> [String: [String]] {
        var purged: [String: [String]] = [:]
        var writer = try DocumentWriter(db: db, makeDocumentID: makeID, indexCache: cache, now: now)
        for (id, revs) in parsed {
            guard var record = try DocumentRecord.fetch(id: id, in: db), let rowID = record.rowID else { continue }
            let previous = record
            let before = Set(record.tree.allRevisions)
            let removedLeaves = record.tree.purge(revs)
            guard !removedLeaves.isEmpty else { continue }
            purged[id] = removedLeaves.map(\.description)
            let gone = before.subtracting(record.tree.allRevisions)
            guard let winner = record.tree.winner else {
                try DocumentRecord.delete(rowID: rowID, in: db)
                // The document is gone without a change to read: its view rows go with it.
                try ViewIndexCatalog.removeDocument(id: id, in: db)
                try writer.indexer.documentChanged(
                    rowID: rowID, id: id, body: nil,
                    previousBody: previous.deleted ? nil : try IndexMaintainer.parse(previous.body), in: db)
                continue
            }
            try RevisionBody.delete(documentRowID: rowID, revs: Array(gone), in: db)
            if winner != record.winnerRev {
                let promoted = try RevisionBody.fetch(documentRowID: rowID, rev: winner, in: db)
                try RevisionBody.delete(documentRowID: rowID, revs: [winner], in: db)
                record.body = promoted?.body
                record.attachments = promoted?.attachments
                record.kind = promoted.flatMap { DocumentWriter.kind(of: $0.body) }
                record.winnerRev = winner
            }
            record.deleted = record.tree.isDeleted
            record.seq = writer.sequence.next()
            try record.save(in: db)
            try writer.indexer.documentChanged(
                rowID: rowID, id: id, body: record.deleted ? nil : try IndexMaintainer.parse(record.body),
                previousBody: previous.deleted ? nil : try IndexMaintainer.parse(previous.body), in: db)
        }
        try writer.finish()
        if !purged.isEmpty {
            try writer.sequence.recordFloor(in: db)
            _ = try AttachmentStorage.deleteUnreferenced(in: db)
        }
        // Every document a request names is a purge info, as CouchDB records one per id and revision list
        // (`couch_db_updater:purge_docs/2`) whether or not anything was left to remove.
        var purgeSeq = try StoreInfo.integer(StoreSchema.StoreInfo.purgeSeq, in: db)
        for (id, revs) in parsed.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            purgeSeq += 1
            try PurgeInfoRecord.insert(
                purgeSeq: purgeSeq, id: id, revs: revs.map(\.description), in: db)
        }
        if !parsed.isEmpty {
            try StoreInfo.set(StoreSchema.StoreInfo.purgeSeq, to: purgeSeq, in: db)
            try PurgeInfoRecord.trim(keeping: try purgedInfosLimit(in: db), in: db)
        }
        return purged
    }
}
