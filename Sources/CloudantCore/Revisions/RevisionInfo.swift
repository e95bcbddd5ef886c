/// One entry of CouchDB's `_revs_info`: a revision on a document's history and whether its body can still
/// be read.
///
/// ```swift
/// tree.revsInfo(for: winner).map(\.json)
/// // [{"rev": "3-cc", "status": "available"}, {"rev": "2-bb", "status": "missing"}, …]
/// ```
public struct RevisionInfo: Sendable, Hashable {
    /// Whether a revision's body can be read.
    public enum Status: String, Sendable, Hashable, CaseIterable {
        /// The body is stored and can be read with `?rev=`.
        case available
        /// The body was compacted away or never received; only the revision id is known.
        case missing
        /// The revision is a deletion.
        case deleted
    }

    /// The revision.
    public let revision: RevisionID
    /// Whether its body can be read.
    public let status: Status

    /// Creates an entry.
    public init(revision: RevisionID, status: Status) {
        self.revision = revision
        self.status = status
    }

    /// The CouchDB form, `{"rev": "3-cc", "status": "available"}`.
    public var json: JSONValue {
        ["rev": .string(revision.description), "status": .string(status.rawValue)]
    }
}
