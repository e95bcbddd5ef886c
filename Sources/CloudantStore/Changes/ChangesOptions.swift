public import CloudantCore

/// What to read from the changes feed, as CouchDB's `_changes` parameters.
public struct ChangesOptions: Sendable {
    /// Which leaves a row lists.
    public enum Style: String, Sendable {
        /// The winning revision only (`main_only`).
        case mainOnly = "main_only"
        /// Every leaf, winner first (`all_docs`).
        case allDocs = "all_docs"
    }

    /// Rows after this sequence (0 = from the start).
    public var since: Int64
    /// At most this many rows.
    public var limit: Int?
    /// Newest first.
    public var descending: Bool
    /// Which leaves a row lists.
    public var style: Style
    /// Include each row's winning document.
    public var includeDocs: Bool
    /// With `includeDocs`, add `_conflicts` to each document.
    public var conflicts: Bool
    /// With `includeDocs`, each document's attachments carry their data (base64) instead of stubs
    /// (`_changes?attachments=true`).
    public var attachments = false
    /// With `includeDocs`, each attachment says how it is stored (`encoding`, `encoded_length`).
    public var attachmentEncodingInfo = false
    /// Only these document ids (`filter=_doc_ids`).
    public var documentIDs: [String]?
    /// Only documents the predicate accepts (`filter=_selector`: the query engine supplies a Mango matcher).
    /// An error it throws (a `$regex` over its step limit) ends the read with that error.
    public var filter: (@Sendable (JSONObject) throws -> Bool)?
    /// With `includeDocs`, each document keeps only these fields, nested as in the document, as `_find`'s
    /// `fields` trims its documents: CouchDB's `fields` beside a `_selector` filter. `nil` keeps them whole.
    public var fields: [FieldPath]?
    /// Whether the documents ``filter`` sees carry `_revisions` (at most 20), as CouchDB hands documents to a
    /// design document's filter function (and `_conflicts` with ``conflicts``).
    public var filterSeesRevisions = false
    /// The documents the reader may see, judged on each row's winning revision before anything else: a row it
    /// refuses is neither listed, nor filtered, nor counted in ``ChangesResult/pending`` (see
    /// ``DocumentVisibility``). `pending` then counts the visible changes, which costs a read of every
    /// document changed after `since`.
    public var visibility: DocumentVisibility?

    /// Creates options with CouchDB's defaults.
    public init(
        since: Int64 = 0, limit: Int? = nil, descending: Bool = false, style: Style = .mainOnly,
        includeDocs: Bool = false, conflicts: Bool = false, documentIDs: [String]? = nil,
        filter: (@Sendable (JSONObject) throws -> Bool)? = nil
    ) {
        self.since = since
        self.limit = limit
        self.descending = descending
        self.style = style
        self.includeDocs = includeDocs
        self.conflicts = conflicts
        self.documentIDs = documentIDs
        self.filter = filter
    }
}

/// One row of the changes feed: a document at the sequence of its latest update.
public struct Change: Sendable, Hashable {
    /// The update sequence.
    public var seq: Int64
    /// The document id.
    public var id: String
    /// The winning revision (`main_only`) or every leaf, winner first (`all_docs`).
    public var changes: [String]
    /// Whether the winner is deleted.
    public var deleted: Bool
    /// The winning document, when asked for.
    public var doc: JSONObject?

    /// CouchDB's row: `{"seq","id","changes":[{"rev"}],"deleted"?,"doc"?}`, `seq` in CouchDB's form
    /// (`UpdateSequence`).
    public var json: JSONValue {
        var object: JSONObject = [
            "seq": UpdateSequence.json(seq), "id": .string(id),
            "changes": .array(changes.map { ["rev": .string($0)] }),
        ]
        if deleted { object["deleted"] = true }
        if let doc { object["doc"] = .object(doc) }
        return .object(object)
    }
}

/// A page of the changes feed.
public struct ChangesResult: Sendable, Hashable {
    /// The rows.
    public var results: [Change]
    /// The sequence to pass as `since` for the next page.
    public var lastSeq: Int64
    /// CouchDB's `pending`: how many changes after this page's position the feed has not looked at
    /// (unfiltered: the changes after the last row; a filter's `doc_ids` are not the only ones counted).
    public var pending: Int
    /// Whether the page stopped at its limit before the end of the feed, so more rows may follow: ask again
    /// from ``lastSeq``. When false, the feed was read to its end.
    public var hasMore: Bool

    /// Creates a page.
    public init(results: [Change], lastSeq: Int64, pending: Int, hasMore: Bool) {
        self.results = results
        self.lastSeq = lastSeq
        self.pending = pending
        self.hasMore = hasMore
    }

    /// CouchDB's body: `{"results":[…],"last_seq":S,"pending":N}`.
    public var json: JSONValue {
        [
            "results": .array(results.map(\.json)), "last_seq": UpdateSequence.json(lastSeq),
            "pending": .number(JSONNumber(pending)),
        ]
    }
}
