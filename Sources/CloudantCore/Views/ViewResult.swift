/// One row of a view answer, as CouchDB writes it: `{"id", "key", "value", "doc"}` for map rows,
/// `{"key", "value"}` for reduced ones.
///
/// ```swift
/// let row = result.rows[0]
/// row.id      // "patient-7" (nil for a reduced row)
/// row.key     // ["2024-05-17", "bp"]
/// row.value   // 1
/// ```
public struct ViewRow: Sendable, Hashable {
    /// The emitting document's id; nil for a reduced row.
    public var id: String?
    /// The row's key (the group's key for a reduced row, `null` for the whole range).
    public var key: JSONValue
    /// The emitted value, or the reduction.
    public var value: JSONValue
    /// With `include_docs`: the document (or the one the value links to by `_id`), `null` when there is none;
    /// nil when documents were not asked for.
    public var document: JSONValue?
    /// Set for a row that stands for a failure: `not_found` (a key of `_all_docs` that names no document) or
    /// `reduce_overflow_error` (a reduction that did not shrink); the row is then `{"key", "error", "reason"}`.
    public var error: String?
    /// Why, for an error row that says.
    public var reason: String?

    /// Creates a row.
    public init(id: String?, key: JSONValue, value: JSONValue, document: JSONValue? = nil) {
        self.id = id
        self.key = key
        self.value = value
        self.document = document
    }

    /// An error row: `{"key": key, "error": error}` and `"reason"` when given.
    public init(key: JSONValue, error: String, reason: String? = nil) {
        self.init(id: nil, key: key, value: .null)
        self.error = error
        self.reason = reason
    }

    /// The row as CouchDB writes it.
    public var json: JSONValue {
        if let error {
            var members: [(String, JSONValue)] = [("key", key), ("error", .string(error))]
            if let reason { members.append(("reason", .string(reason))) }
            return .object(JSONObject(members))
        }
        var members: [(String, JSONValue)] = []
        if let id { members.append(("id", .string(id))) }
        members.append(("key", key))
        members.append(("value", value))
        if let document { members.append(("doc", document)) }
        return .object(JSONObject(members))
    }
}

/// A view answer: its rows and, for map views, `total_rows` and `offset`; `update_seq` when asked for.
public struct ViewResult: Sendable, Hashable {
    /// Rows in the view (map views; nil for reduced answers).
    public var totalRows: Int?
    /// Rows before the first row returned, in the order read (map views; nil for reduced answers).
    public var offset: Int?
    /// The sequence the view's rows are up to date with, when asked for (`update_seq=true`).
    public var updateSeq: Int64?
    /// The rows.
    public var rows: [ViewRow]

    /// Creates an answer.
    public init(totalRows: Int?, offset: Int?, updateSeq: Int64? = nil, rows: [ViewRow]) {
        self.totalRows = totalRows
        self.offset = offset
        self.updateSeq = updateSeq
        self.rows = rows
    }

    /// The answer as CouchDB writes it: `total_rows`, `offset`, `update_seq`, then `rows`.
    public var json: JSONValue {
        var members: [(String, JSONValue)] = []
        if let totalRows { members.append(("total_rows", .number(JSONNumber(totalRows)))) }
        if let offset { members.append(("offset", .number(JSONNumber(offset)))) }
        if let updateSeq { members.append(("update_seq", UpdateSequence.json(updateSeq))) }
        members.append(("rows", .array(rows.map(\.json))))
        return .object(JSONObject(members))
    }
}
