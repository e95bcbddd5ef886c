internal import CloudantCore
internal import GRDB

extension DocumentStore {
    private typealias Documents = StoreSchema.Documents

    /// ``info()`` as a reader limited by `visibility` sees it: `doc_count`, `doc_del_count` and the sizes count
    /// only the documents whose winning revision `visibility` allows (a design document too, when it does), so
    /// the figures say nothing of the others. The update and purge sequences stay the database's.
    ///
    /// It reads every document's winning revision, on a reader thread; cancelling the task stops it.
    /// - Throws: `CloudantError` when the store cannot be read; `CancellationError` when the task is cancelled.
    public func info(visibility: DocumentVisibility) async throws -> DatabaseInfo {
        var info = try await info()
        let counts = try await cancellableRead { db, signal in
            try Self.visibleCounts(after: 0, visibility: visibility, cancellation: signal, in: db)
        }
        info.documentCount = counts.live
        info.deletedDocumentCount = counts.deleted
        info.activeSize = counts.bytes
        info.fileSize = counts.bytes
        return info
    }

    /// What the documents changed after `since` whose winning revision `visibility` allows come to.
    struct VisibleCounts {
        var live = 0
        var deleted = 0
        /// Their winning bodies' bytes.
        var bytes: Int64 = 0

        var all: Int { live + deleted }
    }

    /// Reads the winning revision of every document changed after `since` and counts those `visibility` allows.
    static func visibleCounts(
        after since: Int64, visibility: DocumentVisibility, cancellation: CancellationSignal? = nil, in db: Database
    ) throws -> VisibleCounts {
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT \(DocumentRecord.selectColumns) FROM \(Documents.table) WHERE \(Documents.seq) > ?",
            arguments: [since])
        var counts = VisibleCounts()
        while let row = try cursor.next() {
            try cancellation?.check()
            let record = try DocumentRecord(row: row, in: db)
            guard
                let document = try DocumentAssembler(db: db, record: record).document(
                    rev: record.winnerRev, options: ReadOptions()),
                visibility.allows(document)
            else { continue }
            if record.deleted { counts.deleted += 1 } else { counts.live += 1 }
            counts.bytes += Int64(record.body?.count ?? 0)
        }
        return counts
    }

    /// ``read(_:_:)`` for a long read: the task's cancellation reaches `body` through the signal it checks.
    func cancellableRead<T: Sendable>(_ body: @escaping @Sendable (Database, CancellationSignal) throws -> T) async throws -> T {
        let signal = CancellationSignal()
        return try await withTaskCancellationHandler {
            try await read(.storeUnreadable) { db in try body(db, signal) }
        } onCancel: {
            signal.cancel()
        }
    }
}
