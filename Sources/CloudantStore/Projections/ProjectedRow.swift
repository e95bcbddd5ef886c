public import CloudantCore
public import Foundation
internal import CSQLite

/// One row of a column projection, read in place from SQLite's current row: use it only inside the
/// transform given to ``DocumentStore/projectedRows(_:_:)``, which turns it into the caller's own value
/// (it is not `Sendable`, so it cannot be returned from there).
///
/// Columns are read by position (their order in the projection's definition, fastest) or by name. Values
/// come straight from SQLite's column accessors: a million rows cost no intermediate values. A `.label`
/// column reads as its text (each label's text is made once per read), never as a number.
public struct ProjectedRow {
    private let statement: OpaquePointer
    private let positions: [String: Int]
    private let identifiers: ProjectionTextLookup
    private let isLabel: [Bool]
    private let labels: ProjectionTextLookup?

    init(
        statement: OpaquePointer, positions: [String: Int], identifiers: ProjectionTextLookup, isLabel: [Bool],
        labels: ProjectionTextLookup?
    ) {
        self.statement = statement
        self.positions = positions
        self.identifiers = identifiers
        self.isLabel = isLabel
        self.labels = labels
    }

    /// The document's `_id`. Rows do not repeat it (the document's row holds it), so reading it costs one
    /// lookup by row id; a column that copies an id-like field (a sample's `uuid`) is cheaper to read.
    public var documentID: String { identifiers.text(of: sqlite3_column_int64(statement, 0)) ?? "" }

    /// The text of column `index` (position in the definition); nil for `NULL`.
    public func string(at index: Int) -> String? {
        if let labels, isLabel[index] { return label(at: index, labels) }
        return text(column: Int32(index + 1))
    }

    /// The double of column `index`; nil for `NULL` (and for a `.label` column).
    public func double(at index: Int) -> Double? {
        let column = Int32(index + 1)
        guard sqlite3_column_type(statement, column) != SQLITE_NULL, !isLabel[index] else { return nil }
        return sqlite3_column_double(statement, column)
    }

    /// The integer of column `index`; nil for `NULL` (and for a `.label` column).
    public func integer(at index: Int) -> Int64? {
        let column = Int32(index + 1)
        guard sqlite3_column_type(statement, column) != SQLITE_NULL, !isLabel[index] else { return nil }
        return sqlite3_column_int64(statement, column)
    }

    /// The instant of `.date` column `index`; nil for `NULL`.
    public func date(at index: Int) -> Date? { double(at: index).map(Date.init(timeIntervalSince1970:)) }
    /// The JSON value of `.json` column `index`; nil for `NULL` or text that is not JSON.
    public func json(at index: Int) -> JSONValue? { string(at: index).flatMap { try? JSONValue(parsing: $0) } }

    /// The position of the column named `name`.
    public func index(of name: String) -> Int? { positions[name] }
    /// The text of the column named `name`; nil for `NULL` or an unknown column.
    public func string(_ name: String) -> String? { index(of: name).flatMap(string(at:)) }
    /// The double of the column named `name`.
    public func double(_ name: String) -> Double? { index(of: name).flatMap(double(at:)) }
    /// The integer of the column named `name`.
    public func integer(_ name: String) -> Int64? { index(of: name).flatMap(integer(at:)) }
    /// The instant of the `.date` column named `name`.
    public func date(_ name: String) -> Date? { index(of: name).flatMap(date(at:)) }
    /// The JSON value of the `.json` column named `name`.
    public func json(_ name: String) -> JSONValue? { index(of: name).flatMap(json(at:)) }

    /// Whether the text of column `index` is `value` (both `nil` for `NULL`), compared byte for byte
    /// without making a string: for callers that only need to know whether a value repeats.
    public func string(at index: Int, equals value: String?) -> Bool {
        if let labels, isLabel[index] { return label(at: index, labels) == value }
        let column = Int32(index + 1)
        guard let bytes = sqlite3_column_text(statement, column) else { return value == nil }
        guard var value else { return false }
        let count = Int(sqlite3_column_bytes(statement, column))
        return value.withUTF8 { utf8 in
            utf8.count == count && (count == 0 || memcmp(utf8.baseAddress!, bytes, count) == 0)
        }
    }

    private func label(at index: Int, _ labels: ProjectionTextLookup) -> String? {
        let column = Int32(index + 1)
        guard sqlite3_column_type(statement, column) != SQLITE_NULL else { return nil }
        return labels.text(of: sqlite3_column_int64(statement, column))
    }

    private func text(column: Int32) -> String? {
        // NULL gives no pointer; a number reads as its text, as SQLite's own accessors convert it.
        guard let bytes = sqlite3_column_text(statement, column) else { return nil }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
