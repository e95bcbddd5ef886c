internal import CloudantCore

/// The index catalogue a batch's writes are prepared against: the one last read, shared by the batch.
///
/// Computing a document's JSON index keys (field lookups and collation keys) was a tenth of the writer's
/// time in a load with three indexes, while the helpers that prepare the batch had time to spare. They
/// compute the keys against this snapshot; the writer uses them only when its own catalogue, read inside
/// the transaction, is the same (an index created or dropped meanwhile makes it compute them itself). The
/// writer is given the snapshot once for the batch, and checks it once.
final class IndexSnapshot: Sendable {
    let indexes: [StoredIndex]

    /// Nil when no index is a JSON index: there is nothing to prepare.
    init?(_ indexes: [StoredIndex]) {
        guard indexes.contains(where: { $0.definition.type == .json }) else { return nil }
        self.indexes = indexes
    }

    /// The snapshot of the catalogue `cache` last read, if it has JSON indexes.
    static func lastKnown(in cache: IndexCatalogCache) -> IndexSnapshot? { IndexSnapshot(cache.lastKnown) }

    /// Whether `current` is this catalogue: the same tables with the same definitions, in the same order.
    func matches(_ current: [StoredIndex]) -> Bool {
        indexes.count == current.count
            && zip(indexes, current).allSatisfy { $0.tableName == $1.tableName && $0.definition == $1.definition }
    }

    /// The JSON index entries of a live document `id` with `body`, per index of the snapshot in order: the
    /// key columns of its entry; nil when the index does not hold the document (its partial filter, a missing
    /// field), and for a text index or an index that reads metadata (the writer computes those).
    func entries(id: String, body: JSONObject) -> [[[UInt8]]?] {
        indexes.map { index in
            guard index.definition.type == .json, !index.readsMetadata, index.admits(id: id, body: body) else { return nil }
            return index.jsonKeys(id: id, body: body)
        }
    }
}
