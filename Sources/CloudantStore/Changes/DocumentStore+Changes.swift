internal import CloudantCore
internal import GRDB

extension DocumentStore {
    private typealias Columns = StoreSchema.Documents

    /// Reads the changes feed: each document once, at the sequence of its latest update.
    ///
    /// ```swift
    /// var since: Int64 = 0
    /// let page = try await store.changes(ChangesOptions(since: since, limit: 100))
    /// since = page.lastSeq
    /// ```
    public func changes(_ options: ChangesOptions = ChangesOptions()) async throws -> ChangesResult {
        try await cancellableRead { db, signal in try Self.readChanges(options, cancellation: signal, in: db) }
    }

    /// Every change after `options.since`, then each new change as writes commit, until the task is
    /// cancelled. No change is missed or repeated between the backlog and the live part.
    public func liveChanges(_ options: ChangesOptions = ChangesOptions()) -> AsyncThrowingStream<Change, any Error> {
        let wakeUps = notifier.subscribe()
        return AsyncThrowingStream { continuation in
            let task = Task {
                var since = options.since
                var wakeUpIterator = wakeUps.makeAsyncIterator()
                do {
                    while !Task.isCancelled {
                        var page = options
                        page.since = since
                        page.descending = false
                        let result = try await self.changes(page)
                        for change in result.results { continuation.yield(change) }
                        // A page that moved nowhere (a `limit` of 0 stops at the first row) waits for a write
                        // like an empty one: reading it again at once would spin.
                        let progressed = !result.results.isEmpty || result.lastSeq != since
                        since = result.lastSeq
                        if result.hasMore, progressed { continue }
                        guard await wakeUpIterator.next() != nil else { break }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// A document as a design document's filter function sees it: at most 20 `_revisions` ids (CouchDB's
    /// `query_server_config` `revs_limit`).
    static func filterDocument(_ document: JSONObject?) -> JSONObject? {
        guard var document, case .object(var revisions)? = document["_revisions"], case .array(let ids)? = revisions["ids"],
            ids.count > 20
        else { return document }
        revisions["ids"] = .array(Array(ids.prefix(20)))
        document["_revisions"] = .object(revisions)
        return document
    }

    static func readChanges(
        _ options: ChangesOptions, cancellation: CancellationSignal? = nil, in db: Database
    ) throws -> ChangesResult {
        // Without documents to return or filter, the bodies are not read (NULL in their columns).
        let needsBodies = options.includeDocs || options.filter != nil || options.visibility != nil
        let columns = needsBodies ? DocumentRecord.selectColumnsWithoutKind : DocumentRecord.selectColumnsWithoutBodies
        var sql = "SELECT \(columns) FROM \(Columns.table) WHERE \(Columns.seq) > ?"
        var arguments: StatementArguments = [options.since]
        if let ids = options.documentIDs {
            sql += " AND \(Columns.id) IN (\(databaseQuestionMarks(count: ids.count)))"
            arguments += StatementArguments(ids)
        }
        sql += " ORDER BY \(Columns.seq) " + (options.descending ? "DESC" : "ASC")
        let limit = options.limit ?? Int.max
        var results: [Change] = []
        var lastSeq = options.since
        // CouchDB's `pending` counts down from every change after `since` as changes are looked at
        // (`fabric_rpc:changes`): with `doc_ids` only those documents are looked at; with another filter,
        // changes that fail it count as looked at too. Reading stops at the first change after a full page:
        // one that passes is pending, one that fails is not.
        var lookedAt = 0
        var hasMore = false  // Set when reading stopped before the end of the feed.
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() {
            try cancellation?.check()
            let record = try DocumentRecord(row: row, in: db)
            var doc: JSONObject?
            if needsBodies {
                doc = try DocumentAssembler(db: db, record: record).document(
                    rev: record.winnerRev, options: ReadOptions(conflicts: options.conflicts))
            }
            // A row the reader may not see is skipped before the filter runs, and is not even looked at.
            if let visibility = options.visibility {
                guard let doc, visibility.allows(doc) else { continue }
            }
            var revs = options.style == .allDocs ? record.tree.leaves : [record.winnerRev]
            if let filter = options.filter {
                // Only the leaves that pass the filter are listed; a row with none is skipped.
                let assembler = DocumentAssembler(db: db, record: record)
                revs = try revs.filter { rev in
                    let leaf: JSONObject?
                    if options.filterSeesRevisions {
                        leaf = try Self.filterDocument(assembler.document(rev: rev, options: ReadOptions(revs: true, conflicts: options.conflicts)))
                    } else {
                        leaf = rev == record.winnerRev ? doc : try assembler.document(rev: rev, options: ReadOptions())
                    }
                    return try leaf.map(filter) ?? false
                }
            }
            if results.count >= limit {
                // Past a full page. A change that fails the filter is looked at (and is where the page ends);
                // one that passes is left for the next page. Either way more may follow.
                if revs.isEmpty {
                    lookedAt += 1
                    lastSeq = record.seq
                }
                hasMore = true
                break
            }
            lookedAt += 1
            lastSeq = record.seq
            if revs.isEmpty { continue }
            if options.includeDocs, options.attachments || options.attachmentEncodingInfo {
                // Filters and visibility saw stubs; the row's document is read again with what was asked.
                doc = try DocumentAssembler(db: db, record: record).document(
                    rev: record.winnerRev,
                    options: ReadOptions(
                        conflicts: options.conflicts, attachments: options.attachments,
                        attachmentEncodingInfo: options.attachmentEncodingInfo))
            }
            results.append(
                Change(
                    seq: record.seq, id: record.id, changes: revs.map(\.description), deleted: record.deleted,
                    doc: options.includeDocs ? doc.map { doc in options.fields.map { Self.project(doc, fields: $0) } ?? doc } : nil))
        }
        let total =
            try options.visibility.map {
                try visibleCounts(after: options.since, visibility: $0, cancellation: cancellation, in: db).all
            }
            ?? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(Columns.table) WHERE \(Columns.seq) > ?", arguments: [options.since])
            ?? 0
        let pending = max(0, total - lookedAt)
        if !options.descending, !hasMore {
            // The feed was read to its end: CouchDB's `last_seq` is then the database's (the `doc_ids` path
            // looks only at those documents, so its last row can be far behind).
            lastSeq = max(lastSeq, try SequenceAllocator.latest(in: db))
        }
        return ChangesResult(results: results, lastSeq: lastSeq, pending: pending, hasMore: hasMore)
    }
}
