public import CloudantCore

/// One side of a replication: a store in this process (``LocalPeer``) or a CouchDB-compatible database
/// over HTTP (``HTTPPeer``). The replicator only ever uses these operations, which are exactly the
/// requests of CouchDB's replication protocol, so any peer that answers them can sync.
public protocol ReplicationPeer: Sendable {
    /// What identifies this database in a replication id: a store's uuid, or a URL without credentials.
    func identity() async throws -> String
    /// `GET /db`: the update sequence and instance start time.
    func info() async throws -> PeerInfo
    /// `GET /db/_local/{id}`; nil when it does not exist.
    func localDocument(id: String) async throws -> JSONObject?
    /// `PUT /db/_local/{id}`, replacing whatever is stored.
    func putLocalDocument(id: String, body: JSONObject) async throws
    /// `GET|POST /db/_changes?style=all_docs&since=…&limit=…` with the filter; with `longpoll`, waits up
    /// to that long for a change when there is none.
    func changes(_ request: ChangesRequest) async throws -> ChangesPage
    /// `POST /db/_revs_diff`: which of these revisions the peer lacks.
    func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions]
    /// `POST /db/_bulk_get?revs=true&latest=true` (or `open_revs`): the documents with `_revisions` and
    /// attachment data.
    func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision]
    /// `POST /db/_bulk_docs` with `new_edits: false`; returns the documents that were not written.
    func write(_ documents: [JSONObject]) async throws -> [WriteFailure]
    /// `POST /db/_ensure_full_commit`.
    func ensureFullCommit() async throws
    /// The source of the filter function `ddoc/name` (`GET /db/_design/{ddoc}`), nil when there is none: it
    /// enters the replication id, so a changed filter starts a new replication, as in CouchDB. Default nil.
    func filterFunctionSource(_ name: String) async throws -> String?

    // Large attachments in pieces (not CouchDB requests; a peer that cannot keeps the defaults, and
    // attachments then travel inline).

    /// Whether this peer, as a source, can send large attachments separately. Default false.
    var sendsLargeAttachmentsSeparately: Bool { get }
    /// Whether this peer, as a target, can receive large attachments separately. Default false.
    var receivesLargeAttachmentsSeparately: Bool { get }
    /// Like ``fetch(_:)``, but attachments stored at least `inlineAttachmentLimit` long come as stubs
    /// marked `"follows_separately": true`, to be read with ``attachment(documentID:rev:name:stub:)``.
    func fetch(_ requests: [RevisionRequest], inlineAttachmentLimit: Int) async throws -> [FetchedRevision]
    /// One attachment's bytes in pieces, with its metadata; `stub` is the member the fetched document had
    /// for it (`content_type`, `revpos`, `digest`, `length`, `encoding`).
    func attachment(documentID: String, rev: String, name: String, stub: JSONObject) async throws -> PeerAttachment
    /// Takes in an attachment's pieces ahead of the write that carries it; returns the `_attachments`
    /// member that write gives this peer in its place.
    func receive(_ attachment: PeerAttachment, documentID: String, name: String) async throws -> JSONValue
}

extension ReplicationPeer {
    public func filterFunctionSource(_ name: String) async throws -> String? { nil }

    /// The design document and function names of a filter's `ddoc/name`.
    static func filterParts(_ name: String) -> (designDocument: String, function: String)? {
        guard let slash = name.firstIndex(of: "/") else { return nil }
        let (ddoc, function) = (String(name[..<slash]), String(name[name.index(after: slash)...]))
        return ddoc.isEmpty || function.isEmpty ? nil : (ddoc, function)
    }

    public var sendsLargeAttachmentsSeparately: Bool { false }

    public var receivesLargeAttachmentsSeparately: Bool { false }

    public func fetch(_ requests: [RevisionRequest], inlineAttachmentLimit: Int) async throws -> [FetchedRevision] {
        try await fetch(requests)
    }

    public func attachment(documentID: String, rev: String, name: String, stub: JSONObject) async throws -> PeerAttachment {
        throw CloudantError(.notImplemented, "This peer does not send attachments separately.")
    }

    public func receive(_ attachment: PeerAttachment, documentID: String, name: String) async throws -> JSONValue {
        throw CloudantError(.notImplemented, "This peer does not receive attachments separately.")
    }
}

/// What a peer says about itself (`GET /db`).
public struct PeerInfo: Sendable, Hashable {
    /// The current update sequence (opaque; used for progress estimates).
    public var updateSeq: JSONValue
    /// Changes when the database is recreated.
    public var instanceStartTime: String

    /// Creates peer information.
    public init(updateSeq: JSONValue, instanceStartTime: String) {
        self.updateSeq = updateSeq
        self.instanceStartTime = instanceStartTime
    }
}

/// Which changes a replication reads. The three filters are exclusive, as in CouchDB.
public enum ReplicationFilter: Sendable {
    /// Every document.
    case none
    /// Only these document ids (`filter=_doc_ids`).
    case documentIDs([String])
    /// Only documents the selector matches (`filter=_selector`).
    case selector(MangoSelector)
    /// Only documents the closure accepts; evaluated where the documents are, so a local source only.
    case closure(name: String, @Sendable (JSONObject) -> Bool)
    /// Only documents a design document's filter function passes (`filter=ddoc/name`, CouchDB's replication
    /// `filter` and `query_params`): run by the source, a CouchDB server or a local store with a JavaScript
    /// engine.
    case designFunction(name: String, parameters: [String: String])

    /// The filter as it enters the replication id: a closure is known only by its name.
    var identity: JSONValue {
        switch self {
        case .none: nil
        case .documentIDs(let ids): ["doc_ids": .array(ids.sorted().map { .string($0) })]
        case .selector(let selector): ["selector": selector.json]
        case .closure(let name, _): ["closure": .string(name)]
        case .designFunction(let name, let parameters):
            [
                "filter": .string(name),
                "query_params": .object(JSONObject(parameters.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })),
            ]
        }
    }
}

/// A page of the changes feed to read.
public struct ChangesRequest: Sendable {
    /// Read changes after this sequence (opaque; `0` from the start).
    public var since: JSONValue
    /// At most this many changes.
    public var limit: Int
    /// Which documents.
    public var filter: ReplicationFilter
    /// When set and nothing has changed, wait up to this long for a change (continuous replication).
    public var longpoll: Duration?

    /// Creates a request.
    public init(since: JSONValue, limit: Int, filter: ReplicationFilter = .none, longpoll: Duration? = nil) {
        self.since = since
        self.limit = limit
        self.filter = filter
        self.longpoll = longpoll
    }
}

/// One row of the changes feed with every leaf (`style=all_docs`).
public struct PeerChange: Sendable, Hashable {
    /// The change's sequence (opaque).
    public var seq: JSONValue
    /// The document id.
    public var id: String
    /// Every leaf revision.
    public var revs: [String]
    /// Whether the winner is deleted.
    public var deleted: Bool
    /// Why this row cannot be replicated, when the source sent it beyond the peer's limits (too many leaves,
    /// a revision id too long or with too high a generation): the document is then reported as a failure
    /// (``WriteFailure``) and the checkpoint stays before it, rather than the run stopping or skipping it.
    public var problem: String?

    /// Creates a change.
    public init(seq: JSONValue, id: String, revs: [String], deleted: Bool = false, problem: String? = nil) {
        self.seq = seq
        self.id = id
        self.revs = revs
        self.deleted = deleted
        self.problem = problem
    }
}

/// A page of the changes feed.
public struct ChangesPage: Sendable, Hashable {
    /// The changes, in feed order.
    public var changes: [PeerChange]
    /// The sequence to continue from.
    public var lastSeq: JSONValue
    /// How many changes remain after this page, when the peer says.
    public var pending: Int?
    /// The most changes the page was read with, when the peer read fewer than asked (an answer too large for
    /// its limits is read again in smaller pages): a page as full as this is not the last one.
    public var limit: Int?

    /// Creates a page.
    public init(changes: [PeerChange], lastSeq: JSONValue, pending: Int? = nil, limit: Int? = nil) {
        self.changes = changes
        self.lastSeq = lastSeq
        self.pending = pending
        self.limit = limit
    }
}

/// What `_revs_diff` answers for one document.
public struct MissingRevisions: Sendable, Hashable {
    /// Revisions the peer lacks.
    public var missing: [String]
    /// Revisions the peer has that may be ancestors of the missing ones (for `atts_since`).
    public var possibleAncestors: [String]

    /// Creates an answer.
    public init(missing: [String], possibleAncestors: [String] = []) {
        self.missing = missing
        self.possibleAncestors = possibleAncestors
    }
}

/// One revision to fetch from the source.
public struct RevisionRequest: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// The revision.
    public var rev: String
    /// Revisions the target has: attachments they carry need not be sent.
    public var attachmentsSince: [String]

    /// Creates a request.
    public init(id: String, rev: String, attachmentsSince: [String] = []) {
        self.id = id
        self.rev = rev
        self.attachmentsSince = attachmentsSince
    }
}

/// A fetched revision, or why it could not be fetched.
public enum FetchedRevision: Sendable, Hashable {
    /// The document with `_revisions` (and attachments inline or as stubs).
    case document(JSONObject)
    /// The revision vanished from the source (compaction or purge).
    case missing(id: String, rev: String)
    /// The source sent the revision in a form that cannot be written (malformed base64, an attachment whose
    /// data does not match its stub, a history beyond the peer's limits): `reason` says what, `error` names
    /// it as CouchDB would (`bad_request`, `too_large`). The replicator reads it once more, then reports it.
    case invalid(id: String, rev: String, error: String, reason: String)

    /// The document id.
    public var id: String? {
        switch self {
        case .document(let document): document["_id"]?.stringValue
        case .missing(let id, _), .invalid(let id, _, _, _): id
        }
    }
}

/// A document the target did not write, or a revision a replication could not move: what the target answered,
/// or why the replicator could not fetch or check it. A replication reports the ones it could not resolve in
/// ``ReplicationStats/failures``.
public struct WriteFailure: Sendable, Hashable {
    /// The document id.
    public var id: String?
    /// The revision, when the peer said (or only one revision of the document was written).
    public var rev: String?
    /// The peer's name for the failure: CouchDB's error name from an HTTP peer (`forbidden`, `unauthorized`,
    /// `conflict`, …), the store's `CloudantError.Code` name from a ``LocalPeer``.
    public var error: String
    /// Why.
    public var reason: String
    /// What kind of failure it is.
    public var category: ErrorCategory

    /// Creates a failure; without a `category`, it is read from a CouchDB error name.
    public init(id: String?, rev: String? = nil, error: String, reason: String, category: ErrorCategory? = nil) {
        self.id = id
        self.rev = rev
        self.error = error
        self.reason = reason
        self.category = category ?? Self.category(ofCouchDBError: error)
    }

    /// The category of the error names CouchDB writes in `_bulk_docs` rows.
    static func category(ofCouchDBError name: String) -> ErrorCategory {
        ErrorCategory(httpStatus: CouchDBErrorName.httpStatus(of: name) ?? 400)
    }
}

