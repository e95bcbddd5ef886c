public import CloudantCore

/// What `GET /db` reports about a store.
public struct DatabaseInfo: Sendable, Hashable {
    /// The store name.
    public var name: String
    /// Live documents.
    public var documentCount: Int
    /// Deleted documents (tombstones).
    public var deletedDocumentCount: Int
    /// The latest update sequence.
    public var updateSeq: Int64
    /// How many purges were applied.
    public var purgeSeq: Int64
    /// The SQLite file's size in bytes.
    public var fileSize: Int64
    /// The stored document bytes (bodies and attachments).
    public var activeSize: Int64
    /// Whether the store is partitioned (see ``DocumentStore/isPartitioned()``).
    public var partitioned: Bool = false
    /// The shard count the database was created with (CouchDB's `q`, reported in `cluster`; see
    /// ``DocumentStore/setShardCount(_:)``): 1, the one file a store is, unless one was given.
    public var shardCount: Int = 1
    /// When the store was created, in whole seconds since 1970, as text: CouchDB's `instance_start_time`, its
    /// shard files' creation suffix, which tells a client that a database was deleted and created again under
    /// the same name. A store created before the time was recorded reports when it was first opened since.
    public var instanceStartTime: String = "0"
    /// The store's uuid (``DocumentStore/uuid``), whose first characters ``json``'s sequences carry so that a
    /// `since` taken from them is known for this database's and no other's.
    public var uuid: String = ""

    /// CouchDB's JSON: `db_name`, `doc_count`, `doc_del_count`, `update_seq`, `purge_seq`,
    /// `instance_start_time`, `sizes`, `props` (`{"partitioned": true}` for a partitioned store),
    /// `compact_running`, `disk_format_version`, and `cluster` as a single-node CouchDB with one shard reports
    /// it: `q` as created (the file is one either way), `n`, `w` and `r` 1 (one node, one copy).
    public var json: JSONValue {
        [
            "db_name": .string(name), "doc_count": .number(JSONNumber(documentCount)),
            "doc_del_count": .number(JSONNumber(deletedDocumentCount)), "update_seq": UpdateSequence.json(updateSeq, uuid: uuid),
            "purge_seq": UpdateSequence.json(purgeSeq, uuid: uuid), "instance_start_time": .string(instanceStartTime),
            "sizes": [
                "file": .number(JSONNumber(fileSize)), "active": .number(JSONNumber(activeSize)),
                "external": .number(JSONNumber(activeSize)),
            ],
            "props": partitioned ? ["partitioned": true] : .object(JSONObject()), "compact_running": false,
            "disk_format_version": 8, "cluster": ["q": .number(JSONNumber(shardCount)), "n": 1, "w": 1, "r": 1],
        ]
    }
}
