public import CloudantCore

/// What to include when reading a document, as CouchDB's `GET /db/{docid}` query parameters.
public struct ReadOptions: Sendable, Hashable {
    /// `rev`: read this revision instead of the winner.
    public var rev: String?
    /// `revs`: add `_revisions`.
    public var revs: Bool
    /// `revs_info`: add `_revs_info` to the winning revision read without ``rev``.
    public var revsInfo: Bool
    /// `conflicts`: add `_conflicts` to the winning revision read without ``rev``.
    public var conflicts: Bool
    /// `deleted_conflicts`: add `_deleted_conflicts` to the winning revision read without ``rev``.
    public var deletedConflicts: Bool
    /// `attachments`: inline attachment data instead of stubs.
    public var attachments: Bool
    /// `atts_since`: inline only attachments changed after these revisions.
    public var attachmentsSince: [String]
    /// `local_seq`: add `_local_seq` to the winning revision read without ``rev``.
    public var localSeq: Bool
    /// `att_encoding_info`: add `encoding` and `encoded_length` to attachments stored gzip-encoded.
    public var attachmentEncodingInfo: Bool
    /// For multipart writers: inline `data` holds each attachment's bytes as stored (gzip for an encoded
    /// one) with `length`, `encoding` and `encoded_length`, the way CouchDB's multipart answers send them,
    /// instead of the decoded content JSON answers carry.
    public var attachmentsAsStored: Bool
    /// For replicators that move large attachments separately, in pieces: an attachment that would be
    /// inlined but whose stored bytes are at least this long comes as its stub with
    /// `"follows_separately": true` (and `encoding`/`encoded_length`), to be read with
    /// ``DocumentStore/attachmentContent(documentID:name:rev:)``. Not a CouchDB parameter.
    public var inlineAttachmentLimit: Int? = nil
    /// `deleted=true`: a winning revision that is a deletion is read (its tombstone, `_deleted: true`, with
    /// the metadata asked for) instead of failing with "deleted", as `chttpd_db:parse_doc_query/1` reads the
    /// parameter into CouchDB's `deleted` open option.
    public var includesDeleted = false

    /// Creates options; everything is off by default, as in CouchDB.
    public init(
        rev: String? = nil, revs: Bool = false, revsInfo: Bool = false, conflicts: Bool = false,
        deletedConflicts: Bool = false, attachments: Bool = false, attachmentsSince: [String] = [],
        localSeq: Bool = false, attachmentEncodingInfo: Bool = false, attachmentsAsStored: Bool = false
    ) {
        self.rev = rev
        self.revs = revs
        self.revsInfo = revsInfo
        self.conflicts = conflicts
        self.deletedConflicts = deletedConflicts
        self.attachments = attachments
        self.attachmentsSince = attachmentsSince
        self.localSeq = localSeq
        self.attachmentEncodingInfo = attachmentEncodingInfo
        self.attachmentsAsStored = attachmentsAsStored
    }

    /// `meta`: conflicts, deleted conflicts and revs_info.
    public static var meta: ReadOptions {
        ReadOptions(revsInfo: true, conflicts: true, deletedConflicts: true)
    }

    /// These options without the members CouchDB computes only for the winning revision read by id alone
    /// (`_revs_info`, `_conflicts`, `_deleted_conflicts`, `_local_seq`).
    ///
    /// `couch_db:open_doc_int` fills a document's `meta` from those options when it opens the winner; a
    /// revision opened by name (`?rev=`, `open_revs`, `_bulk_get`) goes through `open_doc_revs_int`, which
    /// never does, so its answer is the revision as stored, with `_revisions` and attachments as asked,
    /// and `GET` sends its ETag.
    var metadataFree: ReadOptions {
        var options = self
        options.revsInfo = false
        options.conflicts = false
        options.deletedConflicts = false
        options.localSeq = false
        return options
    }
}

/// Which leaves to read with ``DocumentStore/openRevisions(id:_:latest:options:)`` (CouchDB `open_revs`).
public enum OpenRevisions: Sendable, Hashable {
    /// Every leaf, deleted leaves included.
    case all
    /// These revisions.
    case revisions([String])
}

/// One element of an `open_revs` answer.
public enum OpenRevisionResult: Sendable, Hashable {
    /// The revision's document.
    case ok(JSONObject)
    /// The revision is not in the tree (or its body is gone).
    case missing(String)

    /// CouchDB's JSON form: `{"ok": {…}}` or `{"missing": "3-abc"}`.
    public var json: JSONValue {
        switch self {
        case .ok(let document): ["ok": .object(document)]
        case .missing(let rev): ["missing": .string(rev)]
        }
    }
}
