internal import CSQLite
internal import CloudantCore
internal import GRDB

/// The rows a first build's mapper emits, as a table SQLite reads (`SELECT … FROM cloudant_view_build_rows`):
/// an eponymous virtual table whose cursor reads the documents in the table's order, maps them a batch at a
/// time and hands SQLite their encoded rows.
///
/// A build reads the rows once, in an `INSERT … SELECT … ORDER BY` into a temporary table, so SQLite's
/// sorter takes them straight from the mapper. Staged through a table first, every row was written to a
/// temporary b-tree, read back and only then sorted: over a million rows that staging alone took about
/// 1.5 s of a Swift view's build.
///
/// The module is registered on the build's connection for the length of one build
/// (``withRows(_:in:_:)``), with the build's ``Source`` as its client data.
enum ViewBuildRows {
    /// The table's name in SQL.
    static let tableName = "cloudant_view_build_rows"
    /// Its columns, in order: the rows table's columns and the document's sequence; the build's temporary
    /// table, which the rows are sorted into, has the same.
    static let columnDefinitions = "view INTEGER, key BLOB, doc_id TEXT, dup INTEGER, key_json TEXT, value_json TEXT, seq INTEGER"

    /// What the table reads: the documents after a sequence, mapped in batches.
    final class Source {
        let db: Database
        let spec: ViewIndexSpec
        let mapper: any ViewBatchMapper
        let encoder: ViewRowEncoder
        /// Where the build reports the documents it has mapped.
        let progress: ViewIndexProgress
        /// The first error, rethrown in place of SQLite's generic one.
        var failure: (any Error)?
        /// Per view, the rows read and the sequence of the last document that emitted one: what the view's state
        /// records, counted here so the build need not scan its million rows again for it.
        var emitted: [Int: (rows: Int, seq: Int64)] {
            var counted: [Int: (rows: Int, seq: Int64)] = [:]
            for (view, state) in emittedByView.enumerated() where state.rows > 0 { counted[view] = state }
            return counted
        }
        // Unchecked at run time as ``ViewBuildBatch``'s properties are: counted on the build's thread only.
        @exclusivity(unchecked) private var emittedByView: [(rows: Int, seq: Int64)] = []

        init(db: Database, spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder, progress: ViewIndexProgress) {
            self.db = db
            self.spec = spec
            self.mapper = mapper
            self.encoder = encoder
            self.progress = progress
        }

        /// Maps the next batch of documents after the document with row id `rowID`, in the table's order (the
        /// build's snapshot holds every document it maps, and their rows are sorted anyway), into `batch`;
        /// returns the row id of the batch's last document, or nil at the end.
        func fill(_ batch: ViewBuildBatch, after rowID: Int64) throws -> Int64? {
            batch.removeAll()
            let documents = try ViewSourceDocuments.read(
                after: rowID, by: .rowID, limit: ViewIndexUpdater.batchSize, includeDesign: spec.includesDesignDocuments,
                localSeq: spec.includesLocalSequence, in: db)
            guard let last = documents.last else { return nil }
            let live = documents.filter { $0.json != nil }
            var current: (mapped: Int, inBatch: Int) = (-1, -1)
            try mapper.forEachMapped(live) { index, view, rows in
                guard !rows.isEmpty else { return }
                let document = live[index]
                if current.mapped != index { current = (index, batch.addDocument(id: document.id, seq: document.seq)) }
                encoder.encode(rows, view: view, document: current.inBatch, documentID: document.id, into: batch)
                while emittedByView.count <= view { emittedByView.append((0, 0)) }
                emittedByView[view].rows += rows.count
                emittedByView[view].seq = max(emittedByView[view].seq, document.seq)
            }
            progress.advance(by: documents.count)
            return last.rowID
        }
    }

    /// Runs `body` with the table readable on `db`, reading through `source`.
    static func withRows<T>(_ source: Source, in db: Database, _ body: () throws -> T) throws -> T {
        guard let connection = db.sqliteConnection else { throw DatabaseError(message: "The database connection is closed.") }
        let client = Unmanaged.passUnretained(source).toOpaque()
        guard sqlite3_create_module_v2(connection, tableName, module, client, nil) == SQLITE_OK else {
            throw DatabaseError(message: "Could not register \(tableName): " + String(cString: sqlite3_errmsg(connection)))
        }
        // A module registered without one is removed.
        defer { sqlite3_create_module_v2(connection, tableName, nil, nil, nil) }
        return try withExtendedLifetime(source) {
            do {
                return try body()
            } catch {
                throw source.failure ?? error
            }
        }
    }

    /// A cursor: the batch it is in, and where.
    fileprivate final class Cursor {
        let source: Source
        private let batch = ViewBuildBatch()
        // SQLite calls the cursor on the build's thread only, one call at a time (see ``ViewBuildBatch``).
        @exclusivity(unchecked) private var row = 0
        /// The row id of the batch's last document: where the next batch starts.
        private var position: Int64 = 0
        private(set) var rowID: Int64 = 0
        private(set) var atEnd = false

        init(source: Source) { self.source = source }

        func start() throws {
            position = 0
            rowID = 0
            atEnd = false
            batch.removeAll()
            row = 0
            try settle()
        }

        func advance() throws {
            row += 1
            rowID += 1
            try settle()
        }

        /// Moves to the first row at or after the current place, mapping batches as needed (a batch whose
        /// documents emit nothing has no rows).
        private func settle() throws {
            while row >= batch.rows.count {
                guard let last = try source.fill(batch, after: position) else {
                    atEnd = true
                    batch.removeAll()
                    return
                }
                position = last
                row = 0
            }
        }

        /// Sets column `column` of the current row as SQLite's result. Bytes are handed over in place: they
        /// stay as they are until the next batch is mapped, which SQLite asks for (`xNext`) only after it has
        /// copied this row into its sorter.
        func result(column: Int32, context: OpaquePointer) {
            let current = batch.rows[row]
            switch column {
            case 0: sqlite3_result_int64(context, Int64(current.view))
            case 1: resultBlob(batch.bytes(current.key), context: context)
            case 2: resultText(batch.bytes(batch.documents[current.document].id), context: context)
            case 3: sqlite3_result_int64(context, Int64(current.duplicate))
            case 4: resultText(batch.bytes(current.keyJSON), context: context)
            case 5: resultText(batch.bytes(current.valueJSON), context: context)
            default: sqlite3_result_int64(context, batch.documents[current.document].seq)
            }
        }

        private func resultBlob(_ bytes: UnsafeRawBufferPointer, context: OpaquePointer) {
            sqlite3_result_blob(context, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), inPlace)
        }

        private func resultText(_ bytes: UnsafeRawBufferPointer, context: OpaquePointer) {
            // A span's address is never nil (the batch's buffer is always allocated), even for no bytes.
            let text = (bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
            sqlite3_result_text(context, text, Int32(bytes.count), inPlace)
        }
    }
}

/// SQLite's `SQLITE_STATIC`: the bytes stay valid while SQLite reads them, and SQLite copies none.
private let inPlace: sqlite3_destructor_type? = nil

// SQLite's table and cursor structures are extended with one pointer each: the build's source, and the
// cursor's state.
private let tableSize = MemoryLayout<sqlite3_vtab>.stride + MemoryLayout<UnsafeMutableRawPointer>.size
private let cursorSize = MemoryLayout<sqlite3_vtab_cursor>.stride + MemoryLayout<UnsafeMutableRawPointer>.size

private func extra(_ base: UnsafeMutableRawPointer, after size: Int) -> UnsafeMutablePointer<UnsafeMutableRawPointer?> {
    (base + size).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
}

private func cursorState(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?) -> ViewBuildRows.Cursor? {
    guard let cursor, let state = extra(UnsafeMutableRawPointer(cursor), after: MemoryLayout<sqlite3_vtab_cursor>.stride).pointee
    else { return nil }
    return Unmanaged<ViewBuildRows.Cursor>.fromOpaque(state).takeUnretainedValue()
}

/// Moves the cursor (to its first row, or its next); an error is recorded as the build's failure and as SQLite's
/// message for the statement.
private func move(_ cursor: UnsafeMutablePointer<sqlite3_vtab_cursor>?, _ body: (ViewBuildRows.Cursor) throws -> Void) -> Int32 {
    guard let state = cursorState(cursor) else { return SQLITE_ERROR }
    do {
        try body(state)
        return SQLITE_OK
    } catch {
        if state.source.failure == nil { state.source.failure = error }
    }
    if let table = cursor?.pointee.pVtab {
        // SQLite frees the message with sqlite3_free, so it is allocated with sqlite3_malloc.
        let message = "view build failed"
        let count = message.utf8.count + 1
        sqlite3_free(table.pointee.zErrMsg)
        table.pointee.zErrMsg = sqlite3_malloc(Int32(count))?.assumingMemoryBound(to: CChar.self)
        if let copy = table.pointee.zErrMsg { message.withCString { copy.initialize(from: $0, count: count) } }
    }
    return SQLITE_ERROR
}

/// An eponymous-only module (no `xCreate`): the table exists on a connection while the module is registered.
nonisolated(unsafe) private let module: UnsafeMutablePointer<sqlite3_module> = {
    let module = UnsafeMutablePointer<sqlite3_module>.allocate(capacity: 1)
    module.initialize(to: sqlite3_module())
    module.pointee.iVersion = 0
    module.pointee.xConnect = { db, client, _, _, table, _ in
        guard let db, let table else { return SQLITE_ERROR }
        let declared = sqlite3_declare_vtab(db, "CREATE TABLE x(\(ViewBuildRows.columnDefinitions))")
        guard declared == SQLITE_OK else { return declared }
        let base = UnsafeMutableRawPointer.allocate(byteCount: tableSize, alignment: MemoryLayout<sqlite3_vtab>.alignment)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: tableSize)
        extra(base, after: MemoryLayout<sqlite3_vtab>.stride).pointee = client
        table.pointee = base.assumingMemoryBound(to: sqlite3_vtab.self)
        return SQLITE_OK
    }
    module.pointee.xBestIndex = { _, info in
        // One plan: read every row once, in no particular order.
        info?.pointee.estimatedCost = 1e9
        info?.pointee.estimatedRows = 1_000_000_000
        return SQLITE_OK
    }
    module.pointee.xDisconnect = { table in
        guard let table else { return SQLITE_OK }
        sqlite3_free(table.pointee.zErrMsg)
        UnsafeMutableRawPointer(table).deallocate()
        return SQLITE_OK
    }
    module.pointee.xOpen = { table, cursor in
        guard let table, let cursor,
            let client = extra(UnsafeMutableRawPointer(table), after: MemoryLayout<sqlite3_vtab>.stride).pointee
        else { return SQLITE_ERROR }
        let source = Unmanaged<ViewBuildRows.Source>.fromOpaque(client).takeUnretainedValue()
        let base = UnsafeMutableRawPointer.allocate(byteCount: cursorSize, alignment: MemoryLayout<sqlite3_vtab_cursor>.alignment)
        base.initializeMemory(as: UInt8.self, repeating: 0, count: cursorSize)
        extra(base, after: MemoryLayout<sqlite3_vtab_cursor>.stride).pointee =
            Unmanaged.passRetained(ViewBuildRows.Cursor(source: source)).toOpaque()
        cursor.pointee = base.assumingMemoryBound(to: sqlite3_vtab_cursor.self)
        return SQLITE_OK
    }
    module.pointee.xClose = { cursor in
        guard let cursor else { return SQLITE_OK }
        let slot = extra(UnsafeMutableRawPointer(cursor), after: MemoryLayout<sqlite3_vtab_cursor>.stride)
        if let state = slot.pointee { Unmanaged<ViewBuildRows.Cursor>.fromOpaque(state).release() }
        UnsafeMutableRawPointer(cursor).deallocate()
        return SQLITE_OK
    }
    module.pointee.xFilter = { cursor, _, _, _, _ in move(cursor) { try $0.start() } }
    module.pointee.xNext = { cursor in move(cursor) { try $0.advance() } }
    module.pointee.xEof = { cursor in
        guard let state = cursorState(cursor) else { return 1 }
        return state.atEnd ? 1 : 0
    }
    module.pointee.xColumn = { cursor, context, column in
        guard let state = cursorState(cursor), let context else { return SQLITE_ERROR }
        state.result(column: column, context: context)
        return SQLITE_OK
    }
    module.pointee.xRowid = { cursor, rowID in
        guard let state = cursorState(cursor) else { return SQLITE_ERROR }
        rowID?.pointee = state.rowID
        return SQLITE_OK
    }
    return module
}()
