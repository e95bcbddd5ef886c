/// An index an entity kind needs, described the way CouchDB's `POST /db/_index` describes one.
///
/// ```swift
/// let byDate = IndexDefinition(name: "task-by-date", fields: [.ascending("effectiveDate"), .ascending("id")])
/// ```
///
/// The equivalent CouchDB request body is
/// `{"index":{"fields":[{"effectiveDate":"asc"},{"id":"asc"}]},"name":"task-by-date","type":"json"}`.
public struct IndexDefinition: Sendable, Hashable {
    /// The kind of index, as CouchDB's `type` member names it.
    public enum IndexType: String, Sendable, Hashable {
        /// A JSON index over the listed fields (a SQLite index on the extracted values).
        case json
        /// A full-text index over the listed fields.
        case text
    }

    /// Which way a field is ordered in the index.
    public enum Order: String, Sendable, Hashable {
        /// Ascending (CouchDB `"asc"`).
        case ascending = "asc"
        /// Descending (CouchDB `"desc"`).
        case descending = "desc"
    }

    /// One indexed field: a dotted path into the document and its order.
    public struct Field: Sendable, Hashable {
        /// The field's dotted path (`"values.0.kind"`); a literal dot is escaped as `\.`.
        public var path: String
        /// The order of this field in the index.
        public var order: Order

        /// Creates an indexed field.
        public init(_ path: String, order: Order = .ascending) {
            self.path = path
            self.order = order
        }

        /// An ascending field.
        public static func ascending(_ path: String) -> Field { Field(path, order: .ascending) }
        /// A descending field.
        public static func descending(_ path: String) -> Field { Field(path, order: .descending) }
    }

    /// The index name, unique within its design document.
    public var name: String
    /// The design document holding the index (CouchDB `ddoc`); `nil` lets the store choose.
    public var designDocument: String?
    /// The indexed fields in order.
    public var fields: [Field]
    /// Only documents matching this Mango selector are indexed (CouchDB `partial_filter_selector`).
    public var partialFilterSelector: JSONValue?
    /// JSON or full-text.
    public var type: IndexType
    /// How a text index splits and normalises words; ignored by JSON indexes.
    public var analyzer: TextAnalyzer
    /// Whether the index is queried per partition (CouchDB's design document `options.partitioned`);
    /// `nil` follows the database (see ``isPartitioned(inPartitionedDatabase:)``).
    public var partitioned: Bool?

    /// Creates an index definition.
    ///
    /// A text index with no `fields` indexes every string, number and boolean in the document (CouchDB's
    /// `"fields": "all_fields"`).
    public init(
        name: String, designDocument: String? = nil, fields: [Field], partialFilterSelector: JSONValue? = nil,
        type: IndexType = .json, analyzer: TextAnalyzer = .standard, partitioned: Bool? = nil
    ) {
        self.name = name
        self.designDocument = designDocument
        self.fields = fields
        self.partialFilterSelector = partialFilterSelector
        self.type = type
        self.analyzer = analyzer
        self.partitioned = partitioned
    }
}

/// How a text index turns text into searchable terms (Cloudant Search's analyzer names).
public enum TextAnalyzer: String, Sendable, Hashable, CaseIterable {
    /// Words by Unicode word boundaries, lowercased, accents folded: `"Café-Owner"` → `cafe`, `owner`.
    case standard
    /// As ``standard``, then reduced to English stems: `"running"` and `"runs"` both → `run`.
    case porter
    /// Runs of letters only, lowercased: digits and punctuation separate words.
    case simple
}
