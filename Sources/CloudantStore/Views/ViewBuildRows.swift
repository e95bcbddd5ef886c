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
/// (``withRows(_:in:_:)``), with the build's supply of batches (``ViewBuildBatchSupply``) as its client data.
enum ViewBuildRows {
    /// The table's name in SQL.
    static let tableName = "cloudant_view_build_rows"
    /// Its columns, in order: the rows table's.
    static let columnDefinitions = "view INTEGER, key BLOB, doc_id TEXT, dup INTEGER, key_json TEXT, value_json TEXT"

    /// What the table reads: the documents of the build's snapshot, read and mapped a batch at a time in the
    /// statement that sorts their rows. (A ``ViewBuildPipeline`` reads them on a thread of its own instead.)
    final class Source: ViewBuildBatchSupply {
        let db: Database
        let spec: ViewIndexSpec
        let mapping: ViewBuildMapping
        /// Where the build reports the documents it has mapped.
        let progress: ViewIndexProgress
        var failure: (any Error)?
        /// The batch the statement reads, and the row id of its last document.
        private let batch = ViewBuildBatch()
        private var position: Int64 = 0
        /// Per view, the rows read and the sequence of the last document that emitted one.
        var emitted: [Int: (rows: Int, seq: Int64)] { mapping.emitted }

        init(db: Database, spec: ViewIndexSpec, mapper: any ViewBatchMapper, encoder: ViewRowEncoder, progress: ViewIndexProgress) {
            self.db = db
            self.spec = spec
            mapping = ViewBuildMapping(mapper: mapper, encoder: encoder)
            self.progress = progress
        }

        /// Documents handed to a design function's engine per call in a first build. Its heap grows with what
        /// one call holds: `cloudant view` building a one-line JavaScript map over 1M documents peaked at
        /// 99.8–101.5 MB with 1,000 per call, 95.5–96.4 MB with 500 (four runs), 96.7–99.3 MB with 250 and
        /// 99.1–99.7 MB with 750 (GNU time's maximum resident size), each build in the same time.
        static let engineBatchSize = 500

        func start() {
            position = 0
        }

        func next(after used: ViewBuildBatch?) throws -> ViewBuildBatch? {
            while let last = try fill(batch, after: position) {
                position = last
                if !batch.rows.isEmpty { return batch }
            }
            return nil
        }

        /// Maps the next batch of documents after the document with row id `rowID`, in the table's order (the
        /// build's snapshot holds every document it maps, and their rows are sorted anyway), into `batch`;
        /// returns the row id of the batch's last document, or nil at the end. A document mapper maps each
        /// document as it is read, in one array reused from document to document.
        private func fill(_ batch: ViewBuildBatch, after rowID: Int64) throws -> Int64? {
            batch.removeAll()
            var last: Int64?
            var count = 0
            if let mapper = mapping.mapper as? any ViewDocumentMapper {
                try ViewSourceDocuments.forEach(
                    after: rowID, by: .rowID, limit: ViewIndexUpdater.batchSize, includeDesign: spec.includesDesignDocuments,
                    localSeq: spec.includesLocalSequence, form: mapper.documentForm, reusingBuffer: true, in: db
                ) { document in
                    last = document.rowID
                    count += 1
                    mapping.map(document, with: mapper, into: batch)
                }
            } else {
                let documents = try ViewSourceDocuments.read(
                    after: rowID, by: .rowID, limit: Self.engineBatchSize, includeDesign: spec.includesDesignDocuments,
                    localSeq: spec.includesLocalSequence, form: mapping.mapper.documentForm, in: db)
                last = documents.last?.rowID
                count = documents.count
                try mapping.map(documents, into: batch)
            }
            progress.advance(by: count)
            return last
        }
    }

    /// Runs `body` with the table readable on `db`, reading through `source`.
    static func withRows<T>(_ source: any ViewBuildBatchSupply, in db: Database, _ body: () throws -> T) throws -> T {
        guard let connection = db.sqliteConnection else { throw DatabaseError(message: "The database connection is closed.") }
        // The module's client data: a class holding the supply, whose type SQLite's callbacks know.
        let client = SupplyReference(source)
        let pointer = Unmanaged.passUnretained(client).toOpaque()
        guard sqlite3_create_module_v2(connection, tableName, module, pointer, nil) == SQLITE_OK else {
            throw DatabaseError(message: "Could not register \(tableName): " + String(cString: sqlite3_errmsg(connection)))
        }
        // A module registered without one is removed.
        defer { sqlite3_create_module_v2(connection, tableName, nil, nil, nil) }
        return try withExtendedLifetime(client) {
            do {
                return try body()
            } catch {
                throw source.failure ?? error
            }
        }
    }

    /// The supply a registration of the module reads, as its client data.
    fileprivate final class SupplyReference {
        let supply: any ViewBuildBatchSupply
        init(_ supply: any ViewBuildBatchSupply) { self.supply = supply }
    }

    /// A cursor: the batch it is in, and where.
    fileprivate final class Cursor {
        let source: any ViewBuildBatchSupply
        // SQLite calls the cursor on the build's thread only, one call at a time (see ``ViewBuildBatch``).
        @exclusivity(unchecked) private var batch: ViewBuildBatch?
        @exclusivity(unchecked) private var row = 0
        private(set) var rowID: Int64 = 0
        private(set) var atEnd = false

        init(source: any ViewBuildBatchSupply) { self.source = source }

        func start() throws {
            rowID = 0
            atEnd = false
            batch = nil
            row = 0
            try source.start()
            try settle()
        }

        func advance() throws {
            row += 1
            rowID += 1
            try settle()
        }

        /// Moves to the first row at or after the current place, taking the next batch when this one is read
        /// (SQLite asks for the next row only after it has copied this one into its sorter, so the batch can
        /// be filled again).
        private func settle() throws {
            while row >= (batch?.rows.count ?? 0) {
                guard let next = try source.next(after: batch) else {
                    atEnd = true
                    batch = nil
                    return
                }
                batch = next
                row = 0
            }
        }

        /// Sets column `column` of the current row as SQLite's result. Bytes are handed over in place: they
        /// stay as they are until the next batch is mapped, which SQLite asks for (`xNext`) only after it has
        /// copied this row into its sorter.
        func result(column: Int32, context: OpaquePointer) {
            guard let batch else { return sqlite3_result_null(context) }
            let current = batch.rows[row]
            switch column {
            case 0: sqlite3_result_int64(context, Int64(current.view))
            case 1: resultBlob(batch.bytes(current.key), context: context)
            case 2: resultText(batch.bytes(batch.documents[current.document].id), context: context)
            case 3: sqlite3_result_int64(context, Int64(current.duplicate))
            case 4: resultText(batch.bytes(current.keyJSON), context: context)
            default: resultText(batch.bytes(current.valueJSON), context: context)
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

/// Where a first build's cursor takes its batches of mapped rows from.
protocol ViewBuildBatchSupply: AnyObject {
    /// The first error, rethrown in place of SQLite's generic one.
    var failure: (any Error)? { get set }
    /// Called when SQLite starts reading the table.
    func start() throws
    /// The next batch with rows, or nil after the last; `used` is the batch the cursor has read (SQLite has
    /// copied its rows), which the supply may fill again.
    func next(after used: ViewBuildBatch?) throws -> ViewBuildBatch?
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
        let source = Unmanaged<ViewBuildRows.SupplyReference>.fromOpaque(client).takeUnretainedValue().supply
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
