internal import CSQLite
internal import CloudantCore
internal import GRDB

/// Values bound straight into a prepared statement, for the statements a write runs once per document
/// (the document row, its index entries, its projection row).
///
/// Why not GRDB's `StatementArguments`: each value there becomes a `DatabaseValueConvertible` existential,
/// then a `DatabaseValue`, then a binding; profiled on a 200k-record health import, that machinery took
/// about a tenth of all the import's CPU, more than SQLite's own inserts into those tables. Text and blobs
/// are copied by SQLite (`SQLITE_TRANSIENT`), so nothing here outlives the call.
struct DirectBinding {
    private let statement: OpaquePointer
    /// The next parameter's position (1-based).
    private(set) var index: Int32 = 1

    fileprivate init(_ statement: OpaquePointer) { self.statement = statement }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds each value, in order.
    mutating func values(_ values: [SQLValue]) {
        for value in values {
            switch value {
            case .text(let text): self.text(text)
            case .blob(let bytes): blob(bytes)
            case .integer(let integer): self.integer(integer)
            case .real(let real): self.real(real)
            }
        }
    }

    /// Binds text.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            // An empty buffer may have no address; SQLite binds a null pointer as NULL, not as ''.
            guard let base = utf8.baseAddress, utf8.count > 0 else {
                _ = sqlite3_bind_text(statement, index, "", 0, Self.transient)
                return
            }
            _ = sqlite3_bind_text(statement, index, base, Int32(utf8.count), Self.transient)
        }
        index += 1
    }

    /// Binds text, or NULL.
    mutating func text(_ value: String?) {
        guard let value else { return null() }
        text(value)
    }

    /// Binds UTF-8 bytes the caller knows to be valid (bodies the store serialised) as text, or NULL.
    mutating func text(utf8 bytes: [UInt8]?) {
        guard let bytes else { return null() }
        guard !bytes.isEmpty else { return text("") }
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                _ = sqlite3_bind_text(statement, index, characters.baseAddress, Int32(characters.count), Self.transient)
            }
        }
        index += 1
    }

    /// Binds a document body in its stored form (``BodyCodec``): a zstd frame as a blob, or the JSON as
    /// text; NULL for none.
    mutating func storedBody(_ json: [UInt8]?, kind: String?, codec: BodyCodec) {
        guard let json else { return null() }
        if let frame = codec.encode(json, kind: kind) { blob(frame) } else { text(utf8: json) }
    }

    /// Binds a blob (an empty one is a zero-length blob, not NULL).
    mutating func blob(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            if buffer.isEmpty {
                _ = sqlite3_bind_zeroblob(statement, index, 0)
            } else {
                _ = sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
            }
        }
        index += 1
    }

    /// Binds an integer.
    mutating func integer(_ value: Int64) {
        _ = sqlite3_bind_int64(statement, index, value)
        index += 1
    }

    /// Binds a real.
    mutating func real(_ value: Double) {
        _ = sqlite3_bind_double(statement, index, value)
        index += 1
    }

    /// Binds NULL.
    mutating func null() {
        _ = sqlite3_bind_null(statement, index)
        index += 1
    }
}

/// One value for a statement's parameter, bound by ``Statement/bind(_:)``: the arguments of the SQL a
/// `_find` builds per query, kept as plain values rather than GRDB's boxed `StatementArguments`.
enum SQLValue: Sendable, Hashable {
    case text(String)
    case blob([UInt8])
    case integer(Int64)
    case real(Double)
}

extension Statement {
    /// Binds `values` to this statement's parameters, in order, after resetting it (GRDB's own arguments are
    /// set again by GRDB whenever it runs the statement itself).
    func bind(_ values: [SQLValue]) {
        rebind { $0.values(values) }
    }

    /// Resets the statement and binds every parameter with `bind`, in order.
    private func rebind(_ bind: (inout DirectBinding) -> Void) {
        sqlite3_reset(sqliteStatement)
        var binding = DirectBinding(sqliteStatement)
        bind(&binding)
        assert(binding.index - 1 == sqlite3_bind_parameter_count(sqliteStatement), "every parameter of \(sql) must be bound")
    }

    /// A failed step as GRDB reports it: SQLite's code and message, with this statement's SQL.
    private func stepFailure(_ code: Int32, in db: Database) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
    }

    /// Runs this write statement with the values `bind` binds, in order, to its parameters.
    ///
    /// The statement is reset before and after, as GRDB's own `execute` leaves it. GRDB's statement hooks
    /// (transaction observers of single statements, the authorizer) are not called: use this only for
    /// plain `INSERT`/`UPDATE`/`DELETE` statements inside a transaction the caller opened with GRDB.
    /// - Throws: GRDB's `DatabaseError` with SQLite's code and message when a step fails.
    func executeBound(in db: Database, _ bind: (inout DirectBinding) -> Void) throws {
        rebind(bind)
        try forEachRow(in: db) { _ in true }
    }
}

/// The current row of a statement stepped by ``Statement/fetchFirstRow(in:_:read:)``, read by column index.
struct DirectRow {
    fileprivate let statement: OpaquePointer
    /// Decodes bodies for ``withBody(_:_:)``: one per statement iteration, made at its first row.
    fileprivate let reader: BodyReader

    /// The column as an integer, or nil for NULL.
    func integer(_ column: Int) -> Int64? {
        let column = Int32(column)
        return sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, column)
    }

    /// The column as a real, or nil for NULL.
    func real(_ column: Int) -> Double? {
        let column = Int32(column)
        return sqlite3_column_type(statement, column) == SQLITE_NULL ? nil : sqlite3_column_double(statement, column)
    }

    /// The column's bytes (a blob's, or text's UTF-8), or nil for NULL; an empty blob is `[]`.
    func bytes(_ column: Int) -> [UInt8]? {
        withBytes(column) { $0.map(Array.init) }
    }

    /// Calls `body` with the column's bytes in place (a blob's, or text's UTF-8; nil for NULL), valid only
    /// during the call: a stored body is parsed without a copy.
    func withBytes<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) rethrows -> T {
        let column = Int32(column)
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return try body(nil) }
        // `sqlite3_column_blob` first, then the length, as SQLite documents (a text value is converted once).
        guard let base = sqlite3_column_blob(statement, column) else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let count = Int(sqlite3_column_bytes(statement, column))
        return try body(UnsafeBufferPointer(start: base.assumingMemoryBound(to: UInt8.self), count: count))
    }

    /// Calls `body` with a stored document body's JSON bytes (nil for NULL): in place when stored as text,
    /// decompressed first when stored as a zstd frame (``BodyCodec``).
    func withBody<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>?) throws -> T) throws -> T {
        try withBytes(column) { stored in
            guard let stored, Zstd.isFrame(UnsafeRawBufferPointer(stored)) else { return try body(stored) }
            return try reader.withJSON(UnsafeRawBufferPointer(stored), connection: sqlite3_db_handle(statement)) { try body($0) }
        }
    }

    /// The winning revision of the revision tree stored in the column (a document's `_rev`): the store keeps
    /// no copy of it beside the tree.
    /// - Throws: `CloudantError.Code.storeUnreadable` when the column holds no tree or a damaged one.
    func winner(_ column: Int) throws -> RevisionID {
        try withBytes(column) { tree in
            guard let tree, let winner = try? RevisionTree.winner(encoded: tree) else {
                throw CloudantError(.storeUnreadable, "A document row's revision tree is missing or damaged.")
            }
            return winner
        }
    }

    /// Calls `body` with the UTF-8 text of the winning revision of the tree stored in the column (``winner(_:)``
    /// as `_rev` writes it), made without a `RevisionID` or a `String` for most trees.
    /// - Throws: `CloudantError.Code.storeUnreadable` when the column holds no tree or a damaged one.
    func withWinnerText<T>(_ column: Int, _ body: (UnsafeBufferPointer<UInt8>) -> T) throws -> T {
        let text: T?? = withBytes(column) { tree in
            guard let tree else { return nil }
            return try? RevisionTree.withWinnerText(encoded: tree, body)
        }
        guard let text, let text else {
            throw CloudantError(.storeUnreadable, "A document row's revision tree is missing or damaged.")
        }
        return text
    }

    /// The column as text, or nil for NULL.
    func text(_ column: Int) -> String? {
        let column = Int32(column)
        guard sqlite3_column_type(statement, column) != SQLITE_NULL, let characters = sqlite3_column_text(statement, column)
        else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: characters, count: count), as: UTF8.self)
    }
}

extension Statement {
    /// Reads this query's first row straight from SQLite with the values `bind` binds; nil when there is no row.
    ///
    /// For the small reads every query or write transaction makes (the schema version, the writer's
    /// settings, a `store_info` value): GRDB's `fetchOne` boxes the arguments and builds a cursor and a row
    /// around the step, which profiled at about 6 % of a one-document `find` and 8 % of a single-document
    /// `put`. Like ``executeBound(in:_:)``, it skips GRDB's statement hooks, so use it only for plain reads.
    /// - Throws: GRDB's `DatabaseError` with SQLite's code and message when the step fails.
    func fetchFirstRow<T>(
        in db: Database, _ bind: (inout DirectBinding) -> Void = { _ in }, read: (DirectRow) throws -> T
    ) throws -> T? {
        rebind(bind)
        var first: T?
        try forEachRow(in: db) { row in
            first = try read(row)
            return false
        }
        return first
    }

    /// Steps this query, whose arguments are already bound (``bind(_:)``),
    /// calling `body` with each row until it returns false or the rows run out; the statement is reset after.
    ///
    /// For queries that read many rows (`_find`): GRDB's cursor and `Row` subscripts decode each value
    /// through generic conversions, which profiled at about a sixth of a one-document `find`. Like
    /// ``executeBound(in:_:)``, it skips GRDB's statement hooks, so use it only for plain reads.
    /// - Throws: what `body` throws, or GRDB's `DatabaseError` with SQLite's code and message when a step fails.
    func forEachRow(in db: Database, _ body: (DirectRow) throws -> Bool) throws {
        let statement = sqliteStatement
        // Made at the first row: a write steps no row, and most reads never decode a body.
        var reader: BodyReader?
        defer { sqlite3_reset(statement) }
        while true {
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                let rowReader = reader ?? BodyReader(codec: BodyCodec.of(db))
                reader = rowReader
                guard try body(DirectRow(statement: statement, reader: rowReader)) else { return }
            case SQLITE_DONE:
                return
            case let code:
                throw stepFailure(code, in: db)
            }
        }
    }

    /// The first column of this query's first row as an integer (nil for no row or NULL); see
    /// ``fetchFirstRow(in:_:read:)``.
    func fetchInteger(in db: Database, _ bind: (inout DirectBinding) -> Void = { _ in }) throws -> Int64? {
        try fetchFirstRow(in: db, bind) { $0.integer(0) } ?? nil
    }
}
