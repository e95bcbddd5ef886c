internal import CloudantCore
internal import Foundation
internal import GRDB

/// What a view query reads from one index: a view's rows in a key range (or exactly some keys), in one
/// direction, as CouchDB folds its b-tree (`couch_mrview_util:key_opts`).
struct ViewScan {
    private typealias Rows = StoreSchema.ViewIndexes.Rows

    var table: String
    var view: Int
    var encoding: ViewKeyEncoding
    /// Rows of this partition only (a partitioned view's query).
    var partition: String?
    var query: ViewQuery

    /// One range to read: rows between two bounds, each a key and maybe a document id.
    struct Range {
        var start: JSONValue?
        var startID: String?
        var end: JSONValue?
        var endID: String?
    }

    /// The ranges the query reads, in order: one per key of `keys` (reversed when descending), else one.
    var ranges: [Range] {
        if let keys = query.keys {
            let ordered = query.descending ? Array(keys.reversed()) : keys
            return ordered.map { Range(start: $0, startID: query.startKeyDocID, end: $0, endID: query.endKeyDocID) }
        }
        return [Range(start: query.startKey, startID: query.startKeyDocID, end: query.endKey, endID: query.endKeyDocID)]
    }

    /// The bytes of a key in this view (under the query's partition).
    func keyBytes(_ key: JSONValue) -> Data {
        var bytes: [UInt8] = []
        if let partition { encoding.append(.string(partition), to: &bytes) }
        encoding.append(key, to: &bytes)
        return Data(bytes)
    }

    /// The bytes every key of the partition starts with.
    private var partitionPrefix: Data? {
        partition.map { Data(encoding.key(.string($0))) }
    }

    /// `WHERE` conditions and arguments selecting a range's rows.
    func conditions(for range: Range) -> (String, StatementArguments) {
        conditions(for: range, keyColumn: Rows.key, idColumn: Rows.documentID, view: true)
    }

    /// `WHERE` conditions and arguments that hold when the row whose collation key and document id are in
    /// `keyColumn` and `idColumn` is in the range (and, with `view`, of the scan's view); `1` when nothing
    /// bounds it. Reduction blocks test their first and last rows with them.
    func conditions(for range: Range, keyColumn: String, idColumn: String, view: Bool) -> (String, StatementArguments) {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        if view {
            clauses.append("\(Rows.view) = ?")
            arguments += [self.view]
        }
        let columns = (key: keyColumn, id: idColumn)
        if let prefix = partitionPrefix {
            clauses.append("\(keyColumn) >= ? AND \(keyColumn) < ?")
            arguments += [prefix, prefix + Data([0xFF])]
        }
        let descending = query.descending
        if let start = range.start {
            append(bound: start, id: range.startID, operator: descending ? "<=" : ">=", columns: columns, to: &clauses, &arguments)
        }
        if let end = range.end {
            let inclusive = query.inclusiveEnd
            let op = descending ? (inclusive ? ">=" : ">") : (inclusive ? "<=" : "<")
            append(bound: end, id: range.endID, operator: op, columns: columns, to: &clauses, &arguments)
        }
        return (clauses.isEmpty ? "1" : "(" + clauses.joined(separator: " AND ") + ")", arguments)
    }

    /// A bound on key, or on key and document id together when an id is given; without one the id is the
    /// lowest or highest there is, which leaves every row of the key in (or out, for an exclusive end).
    private func append(
        bound key: JSONValue, id: String?, operator op: String, columns: (key: String, id: String) = (Rows.key, Rows.documentID),
        to clauses: inout [String], _ arguments: inout StatementArguments
    ) {
        if let id {
            clauses.append("(\(columns.key), \(columns.id)) \(op) (?, ?)")
            arguments += [keyBytes(key), id]
        } else {
            clauses.append("\(columns.key) \(op) ?")
            arguments += [keyBytes(key)]
        }
    }

    /// The rows of a range in the query's order. A document's rows with the same key come in their stored
    /// order whichever the direction, as CouchDB expands them.
    ///
    /// `after` and `before` bound the rows further by their positions, as in ``rowsInPlace(in:after:before:db:_:)``.
    func rows(
        in range: Range, after: ViewReductionBlocks.Position? = nil, before: ViewReductionBlocks.Position? = nil, db: Database,
        _ body: (StoredRow) throws -> Bool
    ) throws {
        guard query.descending else {
            try rowsInPlace(in: range, after: after, before: before, db: db) { row in try body(StoredRow(row)) }
            return
        }
        // Descending: a run of one document's rows with one key is read backwards; give it forwards.
        var run: [StoredRow] = []
        var stopped = false
        try rowsInPlace(in: range, after: after, before: before, db: db) { row in
            let stored = StoredRow(row)
            if let first = run.first, first.key != stored.key || first.documentID != stored.documentID {
                for buffered in run.reversed() where try !body(buffered) {
                    stopped = true
                    return false
                }
                run.removeAll(keepingCapacity: true)
            }
            run.append(stored)
            return true
        }
        guard !stopped else { return }
        for buffered in run.reversed() { if try !body(buffered) { return } }
    }

    /// The rows of a range in key order (descending when the query is), each given in place and valid only
    /// during the call: columns 0 to 3 are the collation key, the document id, the key's and the value's JSON.
    /// Unlike ``rows(in:db:_:)``, a descending read gives a document's rows with one key backwards.
    ///
    /// Read straight from SQLite (``DirectRow``) rather than through GRDB's rows: a reduce reads every row of
    /// its range, and building a row object and four values per row cost more than SQLite's own stepping.
    ///
    /// `after` and `before` bound the rows further by their positions, ascending: a reduce reads the rows
    /// between the reduction blocks it takes whole with them.
    func rowsInPlace(
        in range: Range, after: ViewReductionBlocks.Position? = nil, before: ViewReductionBlocks.Position? = nil, db: Database,
        _ body: (DirectRow) throws -> Bool
    ) throws {
        var (conditions, arguments) = self.conditions(for: range)
        let position = "(\(Rows.key), \(Rows.documentID), \(Rows.duplicate))"
        if let after {
            conditions += " AND \(position) > (?, ?, ?)"
            arguments += [Data(after.key), after.documentID, after.duplicate]
        }
        if let before {
            conditions += " AND \(position) < (?, ?, ?)"
            arguments += [Data(before.key), before.documentID, before.duplicate]
        }
        let order = query.descending ? "DESC" : "ASC"
        let sql = "SELECT \(Rows.key), \(Rows.documentID), \(Rows.keyJSON), \(Rows.valueJSON) FROM \(table) WHERE \(conditions) "
            + "ORDER BY \(Rows.key) \(order), \(Rows.documentID) \(order), \(Rows.duplicate) \(order)"
        // Cached: a reduce that takes blocks whole reads between them, one bounded read per block.
        let statement = try db.cachedStatement(sql: sql)
        try statement.setArguments(arguments)
        try statement.forEachRow(in: db, body)
    }

    /// Rows of the view before the range's start in the query's order (CouchDB's `offset`).
    /// Without a start key, a partition's range starts at its lowest (highest, descending) key, so the rows of
    /// the partitions sorting before it count, as in CouchDB's `{p, Partition, Key}` b-tree keys.
    func rowsBefore(_ range: Range, db: Database) throws -> Int {
        var clauses = ["\(Rows.view) = ?"]
        var arguments: StatementArguments = [view]
        if let start = range.start {
            append(bound: start, id: range.startID, operator: query.descending ? ">" : "<", to: &clauses, &arguments)
        } else if let prefix = partitionPrefix {
            clauses.append(query.descending ? "\(Rows.key) >= ?" : "\(Rows.key) < ?")
            arguments += [query.descending ? prefix + Data([0xFF]) : prefix]
        } else {
            return 0
        }
        return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE " + clauses.joined(separator: " AND "), arguments: arguments) ?? 0
    }
}

/// What a reduce reads of a row: its document id, and its key and value parsed.
protocol ReducibleViewRow {
    var documentID: String { get }
    func parsedKey() throws -> JSONValue
    func parsedValue() throws -> JSONValue
    /// The value's JSON text, in place, for the duration of `body`.
    func withValueText<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T
}

/// One stored row as a query reads it.
struct StoredRow: ReducibleViewRow {
    var key: Data
    var documentID: String
    var keyJSON: String
    var valueJSON: String

    func parsedKey() throws -> JSONValue { try JSONValue(parsing: keyJSON) }
    func parsedValue() throws -> JSONValue { try JSONValue(parsing: valueJSON) }
    func withValueText<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        var text = valueJSON
        return try text.withUTF8(body)
    }
}

extension StoredRow {
    /// Copies a row ``ViewScan/rowsInPlace(in:after:before:db:_:)`` gives.
    init(_ row: DirectRow) {
        self.init(
            key: row.withBytes(0) { bytes in bytes.map { Data(buffer: $0) } ?? Data() }, documentID: row.text(1) ?? "",
            keyJSON: row.text(2) ?? "", valueJSON: row.text(3) ?? "")
    }
}

/// A row ``ViewScan/rowsInPlace(in:after:before:db:_:)`` gives, read where SQLite keeps it: a `_sum` over a million rows
/// parses each value from SQLite's buffer, copying nothing else.
struct InPlaceViewRow: ReducibleViewRow {
    let row: DirectRow

    var documentID: String { row.text(1) ?? "" }
    func parsedKey() throws -> JSONValue { try parse(column: 2) }
    func parsedValue() throws -> JSONValue { try parse(column: 3) }
    func withValueText<T>(_ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T {
        try row.withBytes(3) { bytes in try body(bytes ?? UnsafeBufferPointer(start: nil, count: 0)) }
    }

    private func parse(column: Int) throws -> JSONValue {
        try row.withBytes(column) { bytes in try JSONValue(parsing: bytes ?? UnsafeBufferPointer(start: nil, count: 0)) }
    }
}
