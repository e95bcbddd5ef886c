public import CloudantCore

/// One answer of a live query (see ``DocumentStore/observe(_:limits:visibility:)``): the query's documents as of a committed
/// state of the store.
public struct LiveQueryResult: Sendable, Hashable {
    /// The matching documents, sorted, paged and projected as ``DocumentStore/find(_:limits:visibility:)`` returns them.
    public var docs: [JSONObject]
    /// The update sequence of the snapshot the query read: the result reflects exactly the changes up to it.
    public var seq: Int64
    /// Advice, as `_find` gives it (for example when no index could be used).
    public var warning: String?

    /// Creates a result.
    public init(docs: [JSONObject], seq: Int64, warning: String? = nil) {
        self.docs = docs
        self.seq = seq
        self.warning = warning
    }

    /// The body the HTTP endpoint streams: `{"docs":[…],"seq":N,"warning"?:…}`.
    public var json: JSONValue {
        var object: JSONObject = ["docs": .array(docs.map(JSONValue.object)), "seq": .number(JSONNumber(seq))]
        if let warning { object["warning"] = .string(warning) }
        return .object(object)
    }
}
