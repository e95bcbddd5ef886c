public import CloudantCore

/// What a store's file holds and what compaction could give back (`cloudant db stats`).
public struct StorageStats: Sendable, Hashable {
    /// Documents whose winner is not deleted.
    public var liveDocuments: Int
    /// Documents whose winner is a tombstone.
    public var deletedDocuments: Int
    /// Revision bodies kept: each document's winner, and every other revision still stored (losing
    /// leaves, and ancestors until compaction).
    public var revisionBodies: Int
    /// Of those, bodies of revisions that are not the winner.
    public var otherRevisionBodies: Int
    /// Bytes of the live winners' bodies as stored (compressed where the store compresses them).
    public var liveBodyBytes: Int64
    /// Bytes of the same bodies as JSON, what reads give back (equal to ``liveBodyBytes`` when none is
    /// compressed).
    public var liveBodyJSONBytes: Int64 = 0
    /// How many times smaller the live bodies are stored than their JSON (1 when none is compressed,
    /// 0 for a store without bodies).
    public var bodyCompressionRatio: Double {
        liveBodyBytes > 0 ? Double(liveBodyJSONBytes) / Double(liveBodyBytes) : 0
    }
    /// Bytes of the other revisions' bodies.
    public var otherRevisionBytes: Int64
    /// Bytes of the documents' revision trees (every revision id each history keeps, up to `_revs_limit`):
    /// what replication needs long after the bodies are gone.
    public var treeBytes: Int64
    /// Bytes of stored attachments (each content once, as stored: gzip for compressible types).
    public var attachmentBytes: Int64
    /// The database file's size.
    public var fileSize: Int64
    /// The write-ahead log's size (folded into the file at checkpoints).
    public var walSize: Int64
    /// Bytes of free pages in the file: what `VACUUM` gives back now.
    public var freeBytes: Int64
    /// What compaction would give back: free pages plus the bodies of revisions that are neither the
    /// winner nor a leaf (an estimate: page overhead is not counted).
    public var reclaimableBytes: Int64
    /// Every table and index of the file with the bytes it takes, largest first (empty where SQLite lacks
    /// its `dbstat` table).
    public var structures: [StorageStructure] = []

    /// The file's bytes per live document: what keeping one document costs on disk, its indexes,
    /// projections and history included. Zero for an empty store. (The WAL only holds copies of pages
    /// until the next checkpoint, so it is not counted.)
    public var bytesPerDocument: Int64 { liveDocuments > 0 ? fileSize / Int64(liveDocuments) : 0 }

    /// A structure's JSON with its bytes per live document.
    private func structureJSON(_ structure: StorageStructure) -> JSONValue {
        guard case .object(var object) = structure.json else { return structure.json }
        let perDocument = liveDocuments > 0 ? structure.bytes / Int64(liveDocuments) : 0
        object["bytes_per_document"] = .number(JSONNumber(perDocument))
        return .object(object)
    }

    /// The stats as JSON, with CouchDB-style snake_case names.
    public var json: JSONValue {
        [
            "doc_count": .number(JSONNumber(liveDocuments)), "doc_del_count": .number(JSONNumber(deletedDocuments)),
            "revision_bodies": .number(JSONNumber(revisionBodies)),
            "other_revision_bodies": .number(JSONNumber(otherRevisionBodies)),
            "live_body_bytes": .number(JSONNumber(liveBodyBytes)),
            "live_body_json_bytes": .number(JSONNumber(liveBodyJSONBytes)),
            "body_compression_ratio": .number(JSONNumber((bodyCompressionRatio * 100).rounded() / 100)),
            "other_revision_bytes": .number(JSONNumber(otherRevisionBytes)), "tree_bytes": .number(JSONNumber(treeBytes)),
            "attachment_bytes": .number(JSONNumber(attachmentBytes)), "file_size": .number(JSONNumber(fileSize)),
            "wal_size": .number(JSONNumber(walSize)), "free_bytes": .number(JSONNumber(freeBytes)),
            "reclaimable_bytes": .number(JSONNumber(reclaimableBytes)),
            "bytes_per_document": .number(JSONNumber(bytesPerDocument)),
            "structures": .array(structures.map(structureJSON)),
        ]
    }
}
