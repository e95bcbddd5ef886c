internal import CloudantCore
internal import GRDB
internal import Synchronization

/// The size a partition of a partitioned store may grow to, as CouchDB's `couchdb/max_partition_size`
/// bounds it (`couch_db_updater`): once a partition's documents hold at least that many bytes of JSON, an
/// interactive write that would make a document of it larger is refused with
/// `CloudantError.Code.partitionOverflow` (CouchDB's 403 `partition_overflow`). Deletions and
/// writes that shrink a document still go through, design documents are never counted, and replicated
/// revisions (`new_edits=false`) are always stored, so a replica never loses what its source has.
///
/// Set on a store at any time with ``DocumentStore/setMaxPartitionSize(_:)``; `nil` (the default) bounds
/// nothing. A partition's size is read once per write transaction, before its first document there.
final class PartitionLimit: Sendable {
    private let bytes = Mutex<Int?>(nil)

    var maximum: Int? { bytes.withLock { $0 } }

    func set(_ maximum: Int?) { bytes.withLock { $0 = maximum.flatMap { $0 > 0 ? $0 : nil } } }
}

/// The partitions of one write transaction found full, read as the transaction first writes to each.
struct FullPartitions {
    let maximum: Int
    private var known: [String: Bool] = [:]

    init(maximum: Int) {
        self.maximum = maximum
    }

    /// Refuses an interactive write to document `id` of a full partition that would make it larger.
    /// - Parameters:
    ///   - newSize: the new revision's JSON size (a deletion's is its body's); read only for a full partition.
    ///   - oldSize: the current winner's, 0 for a new document; read only for a full partition.
    mutating func check(id: String, newSize: () throws -> Int, oldSize: () throws -> Int, in db: Database) throws {
        guard !DocumentID.isDesign(id), let partition = DocumentPartition.of(id) else { return }
        if known[partition] == nil {
            typealias Documents = StoreSchema.Documents
            let (lower, upper) = DocumentPartition.idRange(partition)
            let size =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COALESCE(SUM(\(BodySQLFunction.lengthName)(\(Documents.body))), 0) FROM \(Documents.table) "
                        + "WHERE \(Documents.deleted) = 0 AND \(Documents.id) >= ? AND \(Documents.id) < ?",
                    arguments: [lower, upper]) ?? 0
            known[partition] = size >= maximum
        }
        guard known[partition] == true, try newSize() > oldSize() else { return }
        throw CloudantError(
            .partitionOverflow, "Partition limit exceeded due to update on '\(id)'", context: .init(documentID: id))
    }
}
