/// The bounds every answer of an ``HTTPPeer`` is read within, so that a broken or hostile peer cannot crash the
/// replicator, grow its memory without bound, hang it, or get bad data into the store.
///
/// An answer that breaks a bound of the whole answer (its size, its pace, its deadline, its media type, its
/// shape) ends the request with a `CloudantError` with code `CloudantError.Code.peerViolation`; a document beyond a bound
/// of its own (its history, its leaves, a revision id, an attachment's length) is that document's failure
/// (``WriteFailure``), reported while the others move on.
///
/// ```swift
/// var limits = PeerLimits()
/// limits.maximumBodySize = 256 << 20          // a peer with very large documents
/// let remote = try HTTPPeer(url: url, limits: limits)
/// ```
///
/// The defaults leave room for any document CouchDB accepts by default (`max_document_size` 8 MB, revision
/// ids of 32 hex digits, `revs_limit` 1000) and for a busy cluster's pace.
public struct PeerLimits: Sendable, Hashable {
    /// The largest JSON answer read, in bytes (64 MiB). A `_changes` page or `_bulk_get` answer larger than this
    /// is asked for again in halves, down to one change or one revision; a single revision larger than this is
    /// that revision's failure.
    public var maximumBodySize: Int
    /// The slowest pace accepted once an answer has begun, in bytes per second (128), averaged over each
    /// ``rateWindow``; a long poll's wait for a change is exempt.
    public var minimumTransferRate: Int
    /// The window the pace is measured over (60 s).
    public var rateWindow: Duration
    /// The longest an answer may take from the request to its last byte (15 minutes), on top of a long poll's
    /// wait; an attachment moved on its own gets, in addition, the time its stated length takes at
    /// ``minimumTransferRate``.
    public var requestDeadline: Duration
    /// The most leaves one document may have in a `_changes` row or an `open_revs` answer (10,000).
    public var maximumLeaves: Int
    /// The most revisions one document's `_revisions` may list (10,000; CouchDB keeps 1000 by default).
    public var maximumHistory: Int
    /// The longest revision id accepted, in bytes (256; CouchDB's are 34 to 40).
    public var maximumRevisionIDLength: Int

    /// The defaults described on each bound.
    public init(
        maximumBodySize: Int = 64 << 20, minimumTransferRate: Int = 128, rateWindow: Duration = .seconds(60),
        requestDeadline: Duration = .seconds(900), maximumLeaves: Int = 10_000, maximumHistory: Int = 10_000,
        maximumRevisionIDLength: Int = 256
    ) {
        self.maximumBodySize = max(1, maximumBodySize)
        self.minimumTransferRate = max(0, minimumTransferRate)
        self.rateWindow = rateWindow
        self.requestDeadline = requestDeadline
        self.maximumLeaves = max(1, maximumLeaves)
        self.maximumHistory = max(1, maximumHistory)
        self.maximumRevisionIDLength = max(4, maximumRevisionIDLength)
    }
}
