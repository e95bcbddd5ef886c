public import CloudantCore

/// What to read from `_all_docs` (spec D-54 … D-56).
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

    /// Creates options with CouchDB's defaults.
    public init(
        startKey: String? = nil, endKey: String? = nil, inclusiveEnd: Bool = true, descending: Bool = false,
        limit: Int? = nil, skip: Int = 0, includeDocs: Bool = false, conflicts: Bool = false, keys: [String]? = nil
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
    }
}

/// An `_all_docs` answer: `{"total_rows","offset","rows":[{"id","key","value":{"rev"},"doc"?}]}`.
public struct AllDocsResult: Sendable, Hashable {
    /// Live (non-deleted) documents in the store.
    public var totalRows: Int
    /// Rows skipped before the first row returned.
    public var offset: Int
    /// The rows, each already in CouchDB's JSON shape.
    public var rows: [JSONValue]

    /// CouchDB's body.
    public var json: JSONValue {
        ["total_rows": .number(JSONNumber(totalRows)), "offset": .number(JSONNumber(offset)), "rows": .array(rows)]
    }
}
