public import CloudantCore

/// What `GET /db/_design/{ddoc}/_info` reports about a design document's view index.
public struct ViewIndexInfo: Sendable, Hashable {
    /// The index's signature.
    public var signature: String
    /// The design document's language.
    public var language: String
    /// The sequence the rows are up to date with.
    public var updateSeq: Int64
    /// The purge sequence the rows are up to date with.
    public var purgeSeq: Int64
    /// Sequences the store has moved past the index's (`updates_pending`): each write of a document counts.
    public var pendingChanges: Int
    /// Bytes of the index's tables in the store file (`sizes.file`).
    public var fileSize: Int
    /// Bytes of the index's rows in use (`sizes.active`).
    public var activeSize: Int
    /// Bytes of the keys and values as JSON (`sizes.external`).
    public var externalSize: Int
    /// `include_design`, `local_seq`, `partitioned`, as the design document asks. Not in ``json``: a shard
    /// reports it, and `fabric_group_info` leaves it out of the answer CouchDB's cluster gives.
    public var updateOptions: [String]
    /// Whether an update of some index of the store is running.
    public var updaterRunning: Bool

    /// CouchDB's `view_index` object.
    public var json: JSONValue {
        let pending = JSONValue.number(JSONNumber(pendingChanges))
        return [
            "updates_pending": ["minimum": pending, "preferred": pending, "total": pending],
            "waiting_commit": false, "waiting_clients": 0, "updater_running": .bool(updaterRunning),
            "update_seq": .number(JSONNumber(updateSeq)),
            "sizes": [
                "file": .number(JSONNumber(fileSize)), "external": .number(JSONNumber(externalSize)),
                "active": .number(JSONNumber(activeSize)),
            ],
            "signature": .string(signature), "purge_seq": .number(JSONNumber(purgeSeq)), "language": .string(language),
            "compact_running": false, "collator_versions": [.string(Collation.version)],
        ]
    }
}
