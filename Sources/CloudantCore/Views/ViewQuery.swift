/// The parameters of a view query, as CouchDB 3.5 reads them (`couch_mrview_http:parse_params`, validated by
/// `couch_mrview_util:validate_args`): the same for JavaScript views, Swift views, `_all_docs`,
/// `_design_docs` and `_local_docs`.
///
/// ```swift
/// var query = try ViewQuery(parameters: [("startkey", #"["a"]"#), ("group_level", "1")])
/// query.limit = 10
/// ```
public struct ViewQuery: Sendable, Hashable {
    /// How a query may bring the index up to date first (`update`).
    public enum Update: String, Sendable, Hashable {
        /// Bring it up to date, then answer (the default).
        case `true`
        /// Answer from the index as it is.
        case `false`
        /// Answer from the index as it is, then bring it up to date.
        case lazy
    }

    /// `reduce`: false reads a reduce view's map rows; nil leaves the view's kind to decide.
    public var reduce: Bool?
    /// `startkey` / `start_key` (and `key`).
    public var startKey: JSONValue?
    /// `endkey` / `end_key` (and `key`).
    public var endKey: JSONValue?
    /// `startkey_docid` / `start_key_doc_id`: the first row's document id among rows with the start key.
    public var startKeyDocID: String?
    /// `endkey_docid` / `end_key_doc_id`.
    public var endKeyDocID: String?
    /// `keys`: rows of exactly these keys, key by key in this order.
    public var keys: [JSONValue]?
    /// `descending`.
    public var descending = false
    /// `limit`: at most this many rows; nil for no limit.
    public var limit: Int?
    /// `skip`: rows skipped before the first returned.
    public var skip = 0
    /// `group`: true groups by the whole key.
    public var group: Bool?
    /// `group_level`: groups by this many elements of array keys.
    public var groupLevel: Int?
    /// `stable` (and `stale`).
    public var stable = false
    /// `update` (and `stale`).
    public var update = Update.true
    /// `inclusive_end`.
    public var inclusiveEnd = true
    /// `include_docs`.
    public var includeDocs = false
    /// `conflicts` (with `include_docs`); nil when not given.
    public var conflicts: Bool?
    /// `attachments` (with `include_docs`).
    public var attachments = false
    /// `att_encoding_info` (with `include_docs`).
    public var attachmentEncodingInfo = false
    /// `update_seq`: add the index's sequence to the answer.
    public var updateSeq = false
    /// `sorted`.
    public var sorted = true
    /// `partition`.
    public var partition: String?

    /// A query with CouchDB's defaults: every row, ascending.
    public init() {}

    /// The group level CouchDB decides from `group` and `group_level` (`determine_group_level`).
    public enum Grouping: Sendable, Hashable {
        /// One row for the whole range.
        case none
        /// One row per key.
        case exact
        /// One row per leading `n` elements of array keys (the whole key when it is not an array).
        case level(Int)
    }
}
