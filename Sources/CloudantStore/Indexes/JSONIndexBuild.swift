internal import CSQLite
internal import CloudantBase
internal import CloudantCore
internal import GRDB

/// Fills a new JSON index from every live document in one `INSERT … SELECT … ORDER BY` statement.
///
/// SQLite reads the documents and calls back into Swift (a temporary SQL function) for each document's
/// collation keys; its own sorter orders the entries (spilling runs to temporary files past its memory
/// budget, except in an encrypted store, which sorts in memory) and they are inserted in primary-key order,
/// which appends to the B-tree instead of rewriting pages all over it.
///
/// Measured before this (entries computed in Swift, held as arrays, sorted with `Array.sort` and inserted
/// one statement each): a fifth of the build was the sort's comparisons and another sixth freeing the
/// arrays, and every entry was held in memory until the insert.
enum JSONIndexBuild {
    private typealias Documents = StoreSchema.Documents

    /// The SQL function's name; registered only for the length of one build.
    static let functionName = "cloudant_index_build_key"

    /// Computes every JSON index's entries again from the documents, in the caller's transaction: for a
    /// migration that changes how keys are written, so no query compares keys of two forms.
    static func refillAll(in db: Database) throws {
        for index in try IndexCatalog.all(in: db) where index.definition.type == .json {
            try db.execute(sql: "DELETE FROM \(index.tableName)")
            try fill(index, in: db)
        }
    }

    static func fill(_ index: StoredIndex, in db: Database) throws {
        if index.readsMetadata { return try fillFromDocuments(index, in: db) }
        guard let connection = db.sqliteConnection else { throw DatabaseError(message: "The database connection is closed.") }
        let keys = KeyFunction(index, connection: connection)
        let userData = Unmanaged.passUnretained(keys).toOpaque()
        let flags = SQLITE_UTF8 | SQLITE_DIRECTONLY
        guard sqlite3_create_function_v2(connection, functionName, 4, flags, userData, keyFunction, nil, nil, nil) == SQLITE_OK
        else {
            throw DatabaseError(message: "Could not register the index build function: " + String(cString: sqlite3_errmsg(connection)))
        }
        defer { sqlite3_create_function_v2(connection, functionName, 4, flags, nil, nil, nil, nil, nil) }
        try withSorterSettings(in: db) {
            try withExtendedLifetime(keys) {
                do {
                    try db.execute(sql: sql(for: index))
                } catch {
                    throw keys.failure ?? error
                }
            }
        }
    }

    /// Fills an index that reads metadata from every live document as the indexer sees it
    /// (``IndexedDocument``), a batch at a time in the documents table's order: its keys need the revision tree
    /// and attachments beside the body, which the one-statement build's function does not read.
    private static func fillFromDocuments(_ index: StoredIndex, in db: Database) throws {
        var position: Int64 = 0
        while true {
            let batch = try IndexedDocument.batch(after: position, limit: 1_000, in: db)
            for (rowID, id, document) in batch.documents {
                guard let keys = index.jsonKeys(document: document) else { continue }
                try IndexTable.addEntry(index, rowID: rowID, id: id, keys: keys, in: db)
            }
            guard let last = batch.last else { return }
            position = last
        }
    }

    /// Runs `body` with SQLite's sorter set for one large sort, then puts the connection back as it was.
    ///
    /// - `threads = 2`: the sorter sorts and writes full runs in a helper thread while the statement reads on.
    /// - `cache_size` of 4 MB: the sorter hands a run to that thread each time it holds the cache's worth,
    ///   so smaller runs keep both cores busy (measured over 1M documents: 1.55 s with the writer's 16 MB,
    ///   1.28–1.32 s with 2–4 MB, 2.16 s with 64 MB). Runs go to temporary files (unlinked, mode 0600, in
    ///   SQLite's temporary directory) instead of staying in memory. An encrypted store keeps
    ///   temporary data in memory (`temp_store = MEMORY`: a temporary file has no key), where the sorter
    ///   never spills; its cache is left alone.
    private static func withSorterSettings(in db: Database, _ body: () throws -> Void) throws {
        let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
        try db.execute(sql: "PRAGMA threads = 2")
        defer { try? db.execute(sql: "PRAGMA threads = \(threads)") }
        guard try Int.fetchOne(db, sql: "PRAGMA temp_store") != 2 else { return try body() }
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = -4096")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        try body()
    }

    /// `INSERT INTO t (k0, …, id, doc_rowid) SELECT … ORDER BY k0, …, id`: a document without an entry
    /// (a missing field, or outside the partial filter) gets NULL keys, which the NOT NULL columns reject
    /// and `OR IGNORE` skips. No other conflict can happen: the id makes every key unique.
    static func sql(for index: StoredIndex) -> String {
        let columns = index.paths.indices.map(IndexTable.keyColumn)
        let keys = index.paths.indices.map { column in
            "\(functionName)(\(Documents.rowID), \(Documents.id), \(Documents.body), \(column))"
        }
        return "INSERT OR IGNORE INTO \(index.tableName) (" + (columns + [IndexTable.id, IndexTable.documentRowID]).joined(separator: ", ")
            + ") SELECT " + (keys + [Documents.id, Documents.rowID]).joined(separator: ", ")
            + " FROM \(Documents.table) WHERE \(Documents.deleted) = 0 AND \(Documents.body) IS NOT NULL"
            + " AND \(Documents.id) NOT LIKE '\\_design/%' ESCAPE '\\'"
            + " ORDER BY " + (index.paths.indices.map { String($0 + 1) } + [String(columns.count + 1)]).joined(separator: ", ")
    }

    /// What the SQL function reads: the index, and the keys of the document it saw last (SQLite asks once
    /// per key column, so a document is read once however many fields the index has).
    final class KeyFunction {
        /// Where a key column's value comes from: the document id, or a top-level member of the body
        /// (`member` indexes ``memberNames``), then the rest of the field's path.
        private enum Source {
            case id(rest: FieldPath)
            case member(Int, rest: FieldPath)
        }

        let index: StoredIndex
        private let sources: [Source]
        /// The first segment of each body path, once each, as UTF-8.
        private let memberNames: [[UInt8]]
        private var rowID: Int64?
        private var keys: [[UInt8]]?
        /// The first error, rethrown in place of SQLite's generic one.
        var failure: (any Error)?

        /// The connection the build runs on, and its store's codec, which decodes compressed bodies.
        private let connection: OpaquePointer
        private let codec: BodyCodec

        init(_ index: StoredIndex, connection: OpaquePointer) {
            self.index = index
            self.connection = connection
            codec = BodyCodec.of(connection: connection)
            var names: [[UInt8]] = []
            sources = index.paths.map { path in
                let rest = FieldPath(Array(path.segments.dropFirst()))
                guard let first = path.segments.first, first != "_id" else { return .id(rest: rest) }
                let name = Array(first.utf8)
                if let known = names.firstIndex(of: name) { return .member(known, rest: rest) }
                names.append(name)
                return .member(names.count - 1, rest: rest)
            }
            memberNames = names
        }

        /// The document's key columns, or nil when the index holds no entry for it.
        ///
        /// Without a partial filter only the indexed members are parsed (`JSONMemberScan`); a partial
        /// filter sees the whole document, so then the body is parsed in full, as it is when the scan finds
        /// the text malformed (the parser then throws its own error).
        func keys(rowID: Int64, id: () -> String, body: UnsafeBufferPointer<UInt8>) throws -> [[UInt8]]? {
            if rowID == self.rowID { return keys }
            self.rowID = rowID
            keys = nil
            // A compressed body (``BodyCodec``) is decompressed once per document, here.
            if Zstd.isFrame(UnsafeRawBufferPointer(body)) {
                let json = try codec.decode(UnsafeRawBufferPointer(body), connection: connection)
                keys = try json.withUnsafeBufferPointer { try computeKeys(id: id, body: $0) }
            } else {
                keys = try computeKeys(id: id, body: body)
            }
            return keys
        }

        private func computeKeys(id: () -> String, body: UnsafeBufferPointer<UInt8>) throws -> [[UInt8]]? {
            guard index.partialFilter == nil, let ranges = JSONMemberScan.valueRanges(of: memberNames, in: body) else {
                guard case .object(let object) = try JSONValue(parsing: body) else { return nil }
                let id = id()
                guard index.admits(id: id, body: object) else { return nil }
                return index.jsonKeys(id: id, body: object)
            }
            var computed: [[UInt8]] = []
            computed.reserveCapacity(sources.count)
            for source in sources {
                let lookup: FieldPath.Lookup
                switch source {
                case .id(let rest):
                    lookup = rest.lookup(in: .string(id()))
                case .member(let slot, let rest):
                    guard let range = ranges[slot] else { return nil }
                    let value = try JSONValue(parsing: UnsafeBufferPointer(rebasing: body[range]))
                    lookup = rest.segments.isEmpty ? .found(value) : rest.lookup(in: value)
                }
                guard case .found(let value) = lookup else { return nil }
                computed.append(CollationKey.of(value))
            }
            return computed
        }
    }
}

private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// `cloudant_index_build_key(rowid, id, body, column)`: the collation key of one column, or NULL.
private let keyFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = {
    context, _, arguments in
    guard let context, let arguments else { return }
    let keys = Unmanaged<JSONIndexBuild.KeyFunction>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
    let rowID = sqlite3_value_int64(arguments[0])
    // SQLite's rule: ask for the pointer first, then the length.
    let id = {
        let bytes = sqlite3_value_text(arguments[1])
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(arguments[1]))), as: UTF8.self)
    }
    let column = Int(sqlite3_value_int64(arguments[3]))
    // The body's bytes as stored (JSON text or a zstd frame), read in place.
    let base = sqlite3_value_blob(arguments[2])?.assumingMemoryBound(to: UInt8.self)
    let length = Int(sqlite3_value_bytes(arguments[2]))
    do {
        guard let key = try keys.keys(rowID: rowID, id: id, body: UnsafeBufferPointer(start: base, count: length))?[column]
        else { return sqlite3_result_null(context) }
        key.withUnsafeBytes { bytes in
            sqlite3_result_blob(context, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), transient)
        }
    } catch {
        if keys.failure == nil { keys.failure = error }
        sqlite3_result_error(context, "index build failed", -1)
    }
}
