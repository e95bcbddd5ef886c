public import CloudantCore
internal import GRDB

/// One partition's counts, as CouchDB's `GET /{db}/_partition/{partition}` answers.
public struct PartitionInfo: Sendable, Hashable {
    /// The store name.
    public var name: String
    /// The partition.
    public var partition: String
    /// Live documents of the partition.
    public var documentCount: Int
    /// Deleted documents (tombstones) of the partition.
    public var deletedDocumentCount: Int
    /// The stored body bytes of its documents.
    public var activeSize: Int64

    /// CouchDB's JSON: `db_name`, `sizes`, `partition`, `doc_count`, `doc_del_count`.
    public var json: JSONValue {
        [
            "db_name": .string(name),
            "sizes": ["active": .number(JSONNumber(activeSize)), "external": .number(JSONNumber(activeSize))],
            "partition": .string(partition), "doc_count": .number(JSONNumber(documentCount)),
            "doc_del_count": .number(JSONNumber(deletedDocumentCount)),
        ]
    }
}

extension DocumentStore {
    private typealias Documents = StoreSchema.Documents

    /// Whether the store is partitioned (CouchDB's `PUT /db?partitioned=true`): every document id but a
    /// design or local one is `partition:id`, indexes are per partition unless declared global, and
    /// queries may be confined to one partition.
    public func isPartitioned() async throws -> Bool {
        try await read(.storeUnreadable) { db in try Self.isPartitioned(db) }
    }

    static func isPartitioned(_ db: Database) throws -> Bool {
        try StoreInfo.integer(StoreSchema.StoreInfo.partitioned, in: db) != 0
    }

    /// Makes a new store partitioned, as creating a CouchDB database with `?partitioned=true` does.
    ///
    /// ```swift
    /// let store = try DocumentStore.open(name: "readings", fileURL: url)
    /// try await store.makePartitioned()
    /// try await store.put(["_id": "sensor-1:r42", "bpm": 61])
    /// ```
    /// - Throws: `CloudantError` `.invalidInput` when the store already holds documents (their ids need
    ///   not have partitions).
    public func makePartitioned() async throws {
        try await write(.storeUnwritable) { db in
            let hasDocuments = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM \(Documents.table) WHERE \(Documents.id) NOT LIKE '\\_design/%' ESCAPE '\\')")
            guard hasDocuments != true else {
                throw CloudantError(
                    .invalidInput, "Only an empty database can be made partitioned; create a new one with ?partitioned=true.",
                    context: .init(field: "partitioned"))
            }
            try StoreInfo.set(StoreSchema.StoreInfo.partitioned, to: 1, in: db)
        }
    }

    /// The counts of one partition of a partitioned store.
    /// - Throws: `CloudantError` with `QueryErrorKind.illegalPartition` for an invalid name.
    public func partitionInfo(_ partition: String) async throws -> PartitionInfo {
        try DocumentPartition.validate(partition)
        let (lower, upper) = DocumentPartition.idRange(partition)
        return try await read(.storeUnreadable) { db in
            let counts = try Row.fetchOne(
                db,
                sql: "SELECT COUNT(*) FILTER (WHERE \(Documents.deleted) = 0), COUNT(*) FILTER (WHERE \(Documents.deleted) = 1), "
                    + "COALESCE(SUM(LENGTH(\(Documents.body))), 0) FROM \(Documents.table) "
                    + "WHERE \(Documents.id) >= ? AND \(Documents.id) < ?",
                arguments: [lower, upper])
            return PartitionInfo(
                name: self.name, partition: partition, documentCount: counts?[0] ?? 0,
                deletedDocumentCount: counts?[1] ?? 0, activeSize: counts?[2] ?? 0)
        }
    }

    /// Bounds each partition of a partitioned store to `bytes` of document JSON, as CouchDB's
    /// `couchdb/max_partition_size` does: once a partition holds that much, interactive writes that would make
    /// one of its documents larger are refused (`CloudantError.Code.partitionOverflow`);
    /// deletions, shrinking writes, design documents and replicated revisions go through. `nil` or a value
    /// below 1 bounds nothing (the default). Takes effect from the next write.
    public func setMaxPartitionSize(_ bytes: Int?) {
        partitionLimit.set(bytes)
    }

    /// The bound ``setMaxPartitionSize(_:)`` set, if any.
    public var maxPartitionSize: Int? { partitionLimit.maximum }
}
