internal import CloudantCore
internal import Foundation
internal import GRDB

/// Stored partial reductions of a view's rows, as CouchDB keeps reductions in its b-tree's inner nodes.
///
/// Each view's rows are cut, in key order, into blocks of about ``rowsPerBlock`` rows. A block records where it
/// starts and ends, its first row's key as JSON (a group's key when the group starts there), how many rows it
/// has, and their reduction for each reduce of the view that keeps blocks (``ViewBlockReduction``: a built-in
/// whose partials combine, or a runtime's function, whose results queries rereduce; NULL when its rows hold a
/// value the function refuses, so a query reads them and gives CouchDB's error). `view_<n>_reductions` lists which (view, function) pairs have blocks in
/// `view_<n>_blocks`. A reduce query takes a block whose rows all lie in its range and in one group as a whole
/// and reads rows one by one only at the edges. Blocks change in the transaction that changes the rows:
/// ``Changes`` marks dirty the block each changed row falls in, and ``settle(_:in:)`` cuts the dirty ones again
/// from their rows before it commits; a query reads a dirty block's rows.
enum ViewReductionBlocks {
    /// Rows per block when blocks are cut: a grouped reduce over a million rows reads about 4,000 blocks,
    /// and a change to one row reads 256 rows again.
    static let rowsPerBlock = 256

    private typealias Rows = StoreSchema.ViewIndexes.Rows

    static func blocksTable(of table: String) -> String { table + "_blocks" }
    static func catalogueTable(of table: String) -> String { table + "_reductions" }

    /// A row's place in the view's order: key, document id and its number among the document's rows with
    /// that key.
    struct Position: Sendable, Hashable {
        var key: [UInt8]
        var documentID: String
        var duplicate: Int64
    }

    /// One clean block as a query reads it.
    struct Block {
        var start: Position
        var end: Position
        var firstKeyJSON: String
        var lastKeyJSON: String
        var partial: JSONValue
        /// Whether the block's last row is inside the query's range too.
        var ends: Bool
    }

    // MARK: Tables

    /// Whether the index has blocks for the reduce named `function` (``ViewBlockReduction/name``) of `view`.
    static func has(_ table: String, view: Int, function: String, in db: Database) throws -> Bool {
        guard try exists(catalogueTable(of: table), in: db) else { return false }
        return try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM \(catalogueTable(of: table)) WHERE view = ? AND function = ?)",
            arguments: [view, function]) ?? false
    }

    /// Whether `table` exists, read from the schema itself: GRDB's cached schema of a connection does not see
    /// a table another connection (the view maintenance one) created since.
    private static func exists(_ table: String, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)")
            .fetchInteger(in: db) { $0.text(table) } == 1
    }

    /// Whether any of the index's blocks is dirty.
    static func hasDirty(_ table: String, in db: Database) throws -> Bool {
        guard try exists(blocksTable(of: table), in: db) else { return false }
        return try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(blocksTable(of: table)) WHERE dirty)") ?? false
    }

    /// The names of the reduces with blocks, per view.
    private static func catalogue(_ table: String, in db: Database) throws -> [Int: Set<String>] {
        guard try exists(catalogueTable(of: table), in: db) else { return [:] }
        var functions: [Int: Set<String>] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT view, function FROM \(catalogueTable(of: table))") {
            functions[row[0], default: []].insert(row[1])
        }
        return functions
    }

    /// The reduces `reductions` asks blocks for, per view, by name.
    private static func wanted(_ reductions: [[ViewBlockReduction]]) -> [Int: [String: ViewBlockReduction]] {
        var wanted: [Int: [String: ViewBlockReduction]] = [:]
        for (view, functions) in reductions.enumerated() where !functions.isEmpty {
            for function in functions { wanted[view, default: [:]][function.name] = function }
        }
        return wanted
    }

    /// Whether the index's blocks are those `reductions` asks for.
    static func match(_ table: String, reductions: [[ViewBlockReduction]], in db: Database) throws -> Bool {
        try catalogue(table, in: db) == wanted(reductions).mapValues { Set($0.keys) }
    }

    /// Makes the index's blocks those `reductions` asks for: blocks of a reduce no longer asked for are
    /// dropped, a new one's are cut from the view's rows. In the caller's write transaction.
    static func conform(_ table: String, reductions: [[ViewBlockReduction]], in db: Database) throws {
        let wanted = wanted(reductions)
        let existing = try catalogue(table, in: db)
        guard wanted.mapValues({ Set($0.keys) }) != existing else { return }
        try create(table, in: db)
        let blocks = blocksTable(of: table)
        for (view, names) in existing {
            for name in names where wanted[view]?[name] == nil {
                try db.execute(sql: "DELETE FROM \(blocks) WHERE view = ? AND function = ?", arguments: [view, name])
                try db.execute(sql: "DELETE FROM \(catalogueTable(of: table)) WHERE view = ? AND function = ?", arguments: [view, name])
            }
        }
        for (view, functions) in wanted {
            for (name, function) in functions where !(existing[view] ?? []).contains(name) {
                try cut(table, view: view, function: function, from: nil, before: nil, in: db)
                try db.execute(sql: "INSERT INTO \(catalogueTable(of: table)) (view, function) VALUES (?, ?)", arguments: [view, name])
            }
        }
    }

    /// Cuts every block again from all of the view's rows (after a first build loads them), for the reduces
    /// `reductions` asks for.
    static func recutAll(_ table: String, reductions: [[ViewBlockReduction]], in db: Database) throws {
        let existing = try catalogue(table, in: db)
        for (view, functions) in wanted(reductions) {
            for (name, function) in functions where (existing[view] ?? []).contains(name) {
                try db.execute(sql: "DELETE FROM \(blocksTable(of: table)) WHERE view = ? AND function = ?", arguments: [view, name])
                try cut(table, view: view, function: function, from: nil, before: nil, in: db)
            }
        }
    }

    private static func create(_ table: String, in db: Database) throws {
        let blocks = blocksTable(of: table)
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS \(catalogueTable(of: table)) (
                    view INTEGER NOT NULL, function TEXT NOT NULL, PRIMARY KEY (view, function)
                ) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS \(blocks) (
                    view INTEGER NOT NULL, function TEXT NOT NULL,
                    key BLOB NOT NULL, doc_id TEXT NOT NULL, dup INTEGER NOT NULL,
                    last_key BLOB NOT NULL, last_doc_id TEXT NOT NULL, last_dup INTEGER NOT NULL,
                    first_key_json TEXT NOT NULL, last_key_json TEXT NOT NULL, rows INTEGER NOT NULL, dirty INTEGER NOT NULL, partial TEXT,
                    PRIMARY KEY (view, function, key, doc_id, dup)
                ) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS \(blocks)_dirty ON \(blocks)(view, function) WHERE dirty;
                """)
    }

    /// Drops an index's blocks (with the index).
    static func drop(_ table: String, in db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS \(blocksTable(of: table)); DROP TABLE IF EXISTS \(catalogueTable(of: table))")
    }

    // MARK: Cutting

    /// Replaces the blocks of rows from `start` (the view's first row when nil) up to before `end` (its last
    /// row when nil) with blocks cut from those rows. The caller has removed the blocks that started there.
    ///
    /// A view cut whole (a first build, a new function) gets blocks of ``rowsPerBlock`` rows. A part cut again
    /// after changes spreads its rows evenly over as many blocks as it fills (``BlockSizes``): cut every
    /// ``rowsPerBlock`` rows, each part left a short block at its end, and blocks grew smaller with every
    /// update.
    private static func cut(
        _ table: String, view: Int, function: ViewBlockReduction, from start: Position?, before end: Position?, in db: Database
    ) throws {
        var clauses = ["\(Rows.view) = ?"]
        if start != nil { clauses.append("(\(Rows.key), \(Rows.documentID), \(Rows.duplicate)) >= (?, ?, ?)") }
        if end != nil { clauses.append("(\(Rows.key), \(Rows.documentID), \(Rows.duplicate)) < (?, ?, ?)") }
        let range = clauses.joined(separator: " AND ")
        let arguments: [SQLValue] = [.integer(Int64(view))] + (start.map(\.values) ?? []) + (end.map(\.values) ?? [])
        var sizes = BlockSizes(rows: nil)
        var blockSize = 0
        if start != nil {
            let count = try db.cachedStatement(sql: "SELECT COUNT(*) FROM \(table) WHERE \(range)")
            sizes = BlockSizes(rows: Int(try count.fetchInteger(in: db) { $0.values(arguments) } ?? 0))
        }
        let read = try db.cachedStatement(
            sql: "SELECT \(Rows.key), \(Rows.documentID), \(Rows.keyJSON), \(Rows.valueJSON), \(Rows.duplicate) FROM \(table) "
                + "WHERE \(range) ORDER BY \(Rows.key), \(Rows.documentID), \(Rows.duplicate)")
        read.bind(arguments)
        let insert = try db.cachedStatement(
            sql: "INSERT INTO \(blocksTable(of: table)) (view, function, key, doc_id, dup, last_key, last_doc_id, last_dup, "
                + "first_key_json, last_key_json, rows, dirty, partial) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)")
        var block: (start: Position, firstKeyJSON: String, last: Position, accumulation: ViewBlockReduction.Accumulation, rows: Int)?
        // The last row's key JSON, copied into one buffer rather than a string per row.
        var lastKeyJSON: [UInt8] = []
        func store() throws {
            guard let finished = block else { return }
            try insert.executeBound(in: db) { bind in
                bind.integer(Int64(view))
                bind.text(function.name)
                bind.position(finished.start)
                bind.position(finished.last)
                bind.text(finished.firstKeyJSON)
                bind.text(utf8: lastKeyJSON)
                bind.integer(Int64(finished.rows))
                bind.text(finished.accumulation.partial()?.jsonString())
            }
            block = nil
        }
        try read.forEachRow(in: db) { row in
            let position = Position(row)
            if block == nil {
                block = (position, row.text(2) ?? "", position, function.accumulation(), 0)
                blockSize = sizes.next
            }
            block!.accumulation.add(row)
            block!.last = position
            row.withBytes(2) { bytes in
                lastKeyJSON.removeAll(keepingCapacity: true)
                if let bytes { lastKeyJSON.append(contentsOf: bytes) }
            }
            block!.rows += 1
            if block!.rows == blockSize { try store() }
            return true
        }
        try store()
    }

    /// How many rows each block of a cut takes, in order: ``rowsPerBlock`` when the rows are not counted, else
    /// the counted rows spread evenly over as many blocks as they fill (each ``rowsPerBlock`` to twice that,
    /// less one; one block when they fill none), so no block of the cut is short unless the whole cut is.
    struct BlockSizes {
        private let base: Int
        private var larger: Int

        init(rows: Int?) {
            guard let rows else {
                base = rowsPerBlock
                larger = 0
                return
            }
            let blocks = max(1, rows / rowsPerBlock)
            base = max(1, rows / blocks)
            larger = rows % blocks
        }

        /// The size of the next block; each read moves on to the block after.
        var next: Int {
            mutating get {
                guard larger > 0 else { return base }
                larger -= 1
                return base + 1
            }
        }
    }

    // MARK: Keeping blocks with their rows

    /// The blocks a write transaction's row changes touch, recomputed by ``settle(in:)``.
    struct Changes {
        let table: String
        private let functions: [Int: Set<String>]
        private let reductions: [[ViewBlockReduction]]
        // A write touches blocks once per changed row: its statements are prepared once, here.
        private let find: Statement
        private let adjust: Statement
        private let mark: Statement
        private let open: Statement

        /// The changes of `table`'s rows, or nil when the index keeps no blocks. `reductions` are the view's
        /// reduces as its spec has them, which ``settle(in:)`` needs for a runtime's functions; without them
        /// (a purge), blocks of those stay dirty until the next update.
        init?(table: String, reductions: [[ViewBlockReduction]] = [], in db: Database) throws {
            let functions = try ViewReductionBlocks.catalogue(table, in: db)
            guard !functions.isEmpty else { return nil }
            self.table = table
            self.functions = functions
            self.reductions = reductions
            let blocks = ViewReductionBlocks.blocksTable(of: table)
            find = try db.cachedStatement(
                sql: "SELECT key, doc_id, dup, last_key, last_doc_id, last_dup, rows, dirty, partial FROM \(blocks) "
                    + "WHERE view = ? AND function = ? AND (key, doc_id, dup) <= (?, ?, ?) ORDER BY key DESC, doc_id DESC, dup DESC LIMIT 1")
            adjust = try db.cachedStatement(
                sql: "UPDATE \(blocks) SET partial = ?, rows = ?, last_key = ?, last_doc_id = ?, last_dup = ?, "
                    + "last_key_json = COALESCE(?, last_key_json) WHERE view = ? AND function = ? AND key = ? AND doc_id = ? AND dup = ?")
            mark = try db.cachedStatement(
                sql: "UPDATE \(blocks) SET dirty = 1 WHERE view = ? AND function = ? AND key = ? AND doc_id = ? AND dup = ?")
            open = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO \(blocks) (view, function, key, doc_id, dup, last_key, last_doc_id, last_dup, "
                    + "first_key_json, last_key_json, rows, dirty, partial) VALUES (?, ?, ?, ?, ?, ?, ?, ?, '', '', 0, 1, NULL)")
        }

        /// Brings the block a row added or removed at `position` falls in (the last block starting at or before
        /// it) up to date with the change. `_count`, and `_sum` over whole numbers, adjust the stored partial in
        /// place; any other change marks the block dirty, for ``settle(in:)`` to cut again from its rows: a
        /// `_stats` or fractional partial, a removed first or last row (whose key is the block's group key,
        /// read ascending or descending), a block left empty or grown past twice
        /// ``ViewReductionBlocks/rowsPerBlock``. A row before every block opens a dirty block there.
        ///
        /// - Parameters:
        ///   - keyJSON: The row's key as JSON text (read only when the row is added).
        ///   - value: The row's value as JSON text.
        ///   - added: Whether the row is added (else removed).
        func touch(view: Int, at position: Position, keyJSON: [UInt8], value: [UInt8], added: Bool, in db: Database) throws {
            guard let functions = functions[view] else { return }
            let change: Int64 = added ? 1 : -1
            for function in functions {
                let found = try find.fetchFirstRow(in: db, { bind in
                    bind.integer(Int64(view))
                    bind.text(function)
                    bind.position(position)
                }) { row in
                    (start: Position(row, key: 0, documentID: 1, duplicate: 2), last: Position(row, key: 3, documentID: 4, duplicate: 5),
                     rows: row.integer(6) ?? 0, dirty: row.integer(7) != 0, partial: row.text(8))
                }
                guard let block = found else {
                    try open.executeBound(in: db) { bind in
                        bind.integer(Int64(view))
                        bind.text(function)
                        bind.position(position)
                        bind.position(position)
                    }
                    continue
                }
                guard !block.dirty else { continue }
                let rows = block.rows + change
                let partial = Self.adjusted(block.partial, of: function, by: value, change: change)
                let endsBlock = position == block.start || position == block.last
                guard let partial, rows > 0, rows <= Int64(2 * rowsPerBlock), added || !endsBlock else {
                    try mark.executeBound(in: db) { bind in
                        bind.integer(Int64(view))
                        bind.text(function)
                        bind.position(block.start)
                    }
                    continue
                }
                // A row added after the block's last becomes its last (no block starts before the next one's start).
                let extends = added && block.last.precedes(position)
                try adjust.executeBound(in: db) { bind in
                    bind.text(partial)
                    bind.integer(rows)
                    bind.position(extends ? position : block.last)
                    if extends { bind.text(utf8: keyJSON) } else { bind.null() }
                    bind.integer(Int64(view))
                    bind.text(function)
                    bind.position(block.start)
                }
            }
        }

        /// A stored partial with one row's value added or taken out, when that is exact: `_count`'s, and
        /// `_sum`'s while it and the value are whole numbers in 64 bits. Nil otherwise.
        private static func adjusted(_ partial: String?, of name: String, by value: [UInt8], change: Int64) -> String? {
            guard let partial, let stored = Int64(partial), let function = BuiltInReduce(name) else { return nil }
            switch function {
            case .count:
                return String(stored + change)
            case .sum:
                guard let number = value.withUnsafeBufferPointer(ReduceAccumulator.wholeNumber) else { return nil }
                let (sum, overflow) = stored.addingReportingOverflow(change * number)
                return overflow ? nil : String(sum)
            default:
                return nil
            }
        }

        /// Recomputes every dirty block from the rows up to the next block, cut again into blocks of
        /// ``ViewReductionBlocks/rowsPerBlock`` (a block that lost all its rows goes).
        func settle(in db: Database) throws {
            try ViewReductionBlocks.settle(table, reductions: reductions, in: db)
        }
    }

    /// Recomputes the index's dirty blocks (see ``Changes/settle(in:)``): those of built-ins, and of the
    /// runtime functions `reductions` names.
    static func settle(_ table: String, reductions: [[ViewBlockReduction]] = [], in db: Database) throws {
        guard try exists(blocksTable(of: table), in: db) else { return }
        let blocks = blocksTable(of: table)
        var dirty: [(view: Int, function: String, start: Position)] = []
        let read = try db.makeStatement(sql: "SELECT key, doc_id, dup, view, function FROM \(blocks) WHERE dirty")
        try read.forEachRow(in: db) { row in
            dirty.append((Int(row.integer(3) ?? 0), row.text(4) ?? "", Position(row, key: 0, documentID: 1, duplicate: 2)))
            return true
        }
        let next = try db.cachedStatement(
            sql: "SELECT key, doc_id, dup, rows, dirty FROM \(blocks) WHERE view = ? AND function = ? AND (key, doc_id, dup) > (?, ?, ?) "
                + "ORDER BY key, doc_id, dup LIMIT 1")
        let remove = try db.cachedStatement(
            sql: "DELETE FROM \(blocks) WHERE view = ? AND function = ? AND key = ? AND doc_id = ? AND dup = ?")
        /// The block after `position`: where it starts, and whether it is clean and under half full.
        func following(_ position: Position, view: Int, function: String) throws -> (start: Position, small: Bool)? {
            try next.fetchFirstRow(in: db, { bind in
                bind.integer(Int64(view))
                bind.text(function)
                bind.position(position)
            }) { row in
                (Position(row, key: 0, documentID: 1, duplicate: 2), row.integer(4) == 0 && (row.integer(3) ?? 0) < Int64(rowsPerBlock / 2))
            }
        }
        func delete(_ start: Position, view: Int, function: String) throws {
            try remove.executeBound(in: db) { bind in
                bind.integer(Int64(view))
                bind.text(function)
                bind.position(start)
            }
        }
        for block in dirty {
            let named = reductions.indices.contains(block.view) ? reductions[block.view].first { $0.name == block.function } : nil
            guard let function = named ?? BuiltInReduce(block.function).map(ViewBlockReduction.builtIn) else {
                continue
            }
            var end = try following(block.start, view: block.view, function: block.function)
            // A clean block under half full after it is cut again with this one: recutting leaves a short
            // block at its end, and without this the blocks would grow shorter with every change.
            if let small = end, small.small {
                try delete(small.start, view: block.view, function: block.function)
                end = try following(small.start, view: block.view, function: block.function)
            }
            try delete(block.start, view: block.view, function: block.function)
            try cut(table, view: block.view, function: function, from: block.start, before: end?.start, in: db)
        }
    }

    // MARK: Reading

    /// The clean blocks of `function` whose first row is in `range` of `scan`, in the query's order, each
    /// saying whether its last row is in the range too.
    static func blocks(
        of scan: ViewScan, function: String, in range: ViewScan.Range, db: Database
    ) throws -> [Block] {
        let (startConditions, startArguments) = scan.conditions(for: range, keyColumn: "key", idColumn: "doc_id", view: true)
        let (endConditions, endArguments) = scan.conditions(for: range, keyColumn: "last_key", idColumn: "last_doc_id", view: false)
        let statement = try db.cachedStatement(
            sql: "SELECT key, doc_id, dup, last_key, last_doc_id, last_dup, first_key_json, partial, \(endConditions), last_key_json "
                + "FROM \(blocksTable(of: scan.table)) WHERE function = ? AND \(startConditions) AND NOT dirty AND partial IS NOT NULL "
                + (scan.query.descending ? "ORDER BY key DESC, doc_id DESC, dup DESC" : "ORDER BY key, doc_id, dup"))
        try statement.setArguments(endArguments + [function] + startArguments)
        var blocks: [Block] = []
        try statement.forEachRow(in: db) { row in
            let partial = try row.withBytes(7) { try JSONValue(parsing: $0 ?? UnsafeBufferPointer(start: nil, count: 0)) }
            blocks.append(
                Block(
                    start: Position(row, key: 0, documentID: 1, duplicate: 2), end: Position(row, key: 3, documentID: 4, duplicate: 5),
                    firstKeyJSON: row.text(6) ?? "", lastKeyJSON: row.text(9) ?? "", partial: partial, ends: row.integer(8) == 1))
            return true
        }
        return blocks
    }
}

extension ViewReductionBlocks.Position {
    /// The position in columns 0 (key), 1 (document id) and 4 (duplicate number), as the rows' reads select them.
    init(_ row: DirectRow) {
        self.init(row, key: 0, documentID: 1, duplicate: 4)
    }

    init(_ row: DirectRow, key: Int, documentID: Int, duplicate: Int) {
        self.init(key: row.bytes(key) ?? [], documentID: row.text(documentID) ?? "", duplicate: row.integer(duplicate) ?? 0)
    }

    var values: [SQLValue] { [.blob(key), .text(documentID), .integer(duplicate)] }

    /// Whether this position comes before `other` in the rows' order, as SQLite compares the columns: the key's
    /// bytes, then the document id's UTF-8 bytes, then the duplicate number.
    func precedes(_ other: Self) -> Bool {
        if key != other.key { return key.lexicographicallyPrecedes(other.key) }
        if documentID != other.documentID { return documentID.utf8.lexicographicallyPrecedes(other.documentID.utf8) }
        return duplicate < other.duplicate
    }
}

extension DirectBinding {
    /// Binds a row position's key, document id and duplicate number.
    mutating func position(_ position: ViewReductionBlocks.Position) {
        blob(position.key)
        text(position.documentID)
        integer(position.duplicate)
    }
}
