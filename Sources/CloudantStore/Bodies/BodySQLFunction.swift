internal import CSQLite
internal import Foundation
internal import GRDB

/// `cloudant_body(body)`: a stored body as JSON text, for SQL that reads into bodies (`->`, `json_extract`,
/// the query engine's pushed-down conditions): text is passed through as it is, a zstd frame is
/// decompressed, NULL stays NULL. Registered on every connection of a store (``BodyCodec/register(on:)``).
///
/// A query often reads several members of one body (`cloudant_body(body) -> '$.a'`, then `-> '$.b'`), which
/// calls the function once per member on the same row: each connection's function has a ``BodyReader``,
/// which remembers the last frame, so a row is decompressed once.
enum BodySQLFunction {
    static let name = "cloudant_body"

    static func install(on db: Database, codec: BodyCodec) throws {
        guard let connection = db.sqliteConnection else { throw DatabaseError(message: "The database connection is closed.") }
        let reader = Unmanaged.passRetained(BodyReader(codec: codec)).toOpaque()
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        guard sqlite3_create_function_v2(connection, name, 1, flags, reader, bodyFunction, nil, nil, releaseReader) == SQLITE_OK,
            sqlite3_create_function_v2(connection, lengthName, 1, flags, nil, lengthFunction, nil, nil, nil) == SQLITE_OK
        else {
            throw DatabaseError(message: "Could not register \(name): " + String(cString: sqlite3_errmsg(connection)))
        }
    }

    /// `cloudant_body_length(body)`: the length of a stored body's JSON, read from a frame's header without
    /// decompressing it (what the body would take uncompressed); NULL stays NULL.
    static let lengthName = "cloudant_body_length"
}

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

private let releaseReader: @convention(c) (UnsafeMutableRawPointer?) -> Void = { reader in
    guard let reader else { return }
    Unmanaged<BodyReader>.fromOpaque(reader).release()
}

private let bodyFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let context, let argument = arguments?[0] else { return }
    guard sqlite3_value_type(argument) == SQLITE_BLOB else { return sqlite3_result_value(context, argument) }
    // SQLite's rule: ask for the pointer first, then the length.
    let base = sqlite3_value_blob(argument)
    let frame = UnsafeRawBufferPointer(start: base, count: Int(sqlite3_value_bytes(argument)))
    let reader = Unmanaged<BodyReader>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
    do {
        try reader.withJSON(frame, connection: sqlite3_context_db_handle(context)) { json in
            json.withMemoryRebound(to: CChar.self) { text in
                guard let base = text.baseAddress else { return sqlite3_result_text(context, "", 0, transient) }
                sqlite3_result_text(context, base, Int32(text.count), transient)
            }
        }
    } catch {
        sqlite3_result_error(context, "\(error)", -1)
    }
}

private let lengthFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let context, let argument = arguments?[0] else { return }
    guard sqlite3_value_type(argument) == SQLITE_BLOB else {
        if sqlite3_value_type(argument) == SQLITE_NULL { return sqlite3_result_null(context) }
        return sqlite3_result_int64(context, Int64(sqlite3_value_bytes(argument)))
    }
    let base = sqlite3_value_blob(argument)
    let stored = UnsafeRawBufferPointer(start: base, count: Int(sqlite3_value_bytes(argument)))
    sqlite3_result_int64(context, Int64(BodyCodec.jsonLength(of: stored)))
}
