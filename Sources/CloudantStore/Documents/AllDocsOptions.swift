public import CloudantCore

/// What to read from `_all_docs`.
public struct AllDocsOptions: Sendable, Hashable {
    /// Rows from this id (`startkey`).
    public var startKey: String?
    /// Rows up to this id (`endkey`).
    public var endKey: String?
    /// Whether `endKey` itself is included (`inclusive_end`, default true).
    public var inclusiveEnd: Bool
    /// Reverse order (`descending`); `startKey` is then the upper bound.
    public var descending: Bool
    /// At most this many rows.
    public var limit: Int?
    /// Skip this many rows first.
    public var skip: Int
    /// Include each document.
    public var includeDocs: Bool
    /// With `includeDocs`, add `_conflicts`.
    public var conflicts: Bool
    /// Exactly these ids, in this order (`keys`); deleted and unknown ids get rows of their own.
    public var keys: [String]?
    /// Add the database's update sequence to the answer (`update_seq`).
    public var updateSeq: Bool
    /// With `includeDocs`, how to read each document (`attachments`, `att_encoding_info`); its
    /// `conflicts` follows ``conflicts``.
    public var documentOptions: ReadOptions

    /// Creates options with CouchDB's defaults.
    public init(
        startKey: String? = nil, endKey: String? = nil, inclusiveEnd: Bool = true, descending: Bool = false,
        limit: Int? = nil, skip: Int = 0, includeDocs: Bool = false, conflicts: Bool = false, keys: [String]? = nil,
        updateSeq: Bool = false, documentOptions: ReadOptions = ReadOptions()
    ) {
        self.startKey = startKey
        self.endKey = endKey
        self.inclusiveEnd = inclusiveEnd
        self.descending = descending
        self.limit = limit
        self.skip = skip
        self.includeDocs = includeDocs
        self.conflicts = conflicts
        self.keys = keys
        self.updateSeq = updateSeq
        self.documentOptions = documentOptions
    }
}

/// An `_all_docs` answer: `{"total_rows","offset","rows":[{"id","key","value":{"rev"},"doc"?}]}`.
public struct AllDocsResult: Sendable, Hashable {
    /// Live (non-deleted) documents in the store.
    public var totalRows: Int
    /// The number of rows before the first row returned, in the order read (skipped rows included);
    /// `nil` for a `keys` request, which CouchDB answers with `"offset": null`.
    public var offset: Int?
    /// The rows, each already in CouchDB's JSON shape.
    public var rows: [JSONValue]
    /// The database's update sequence, when asked for with ``AllDocsOptions/updateSeq``.
    public var updateSeq: Int64?

    /// Creates an answer.
    public init(totalRows: Int, offset: Int?, rows: [JSONValue], updateSeq: Int64? = nil) {
        self.totalRows = totalRows
        self.offset = offset
        self.rows = rows
        self.updateSeq = updateSeq
    }

    /// CouchDB's body: `total_rows`, `offset`, `update_seq` when asked for, `rows`.
    public var json: JSONValue {
        var body: JSONObject = [
            "total_rows": .number(JSONNumber(totalRows)), "offset": offset.map { .number(JSONNumber($0)) } ?? .null,
        ]
        if let updateSeq { body["update_seq"] = UpdateSequence.json(updateSeq) }
        body["rows"] = .array(rows)
        return .object(body)
    }
}
