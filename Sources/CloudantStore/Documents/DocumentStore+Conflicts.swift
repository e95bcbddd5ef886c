internal import CloudantCore
internal import GRDB

extension DocumentStore {
    /// The ids of documents with conflicts: more than one live leaf (CouchDB's `_conflicts`),
    /// in `_id` order.
    ///
    /// ```swift
    /// for id in try await store.conflictedDocumentIDs() { … }
    /// ```
    ///
    /// Reads every document's revision tree; SQLite cannot tell a branched tree from its bytes.
    public func conflictedDocumentIDs(limit: Int = .max) async throws -> [String] {
        try await read(.storeUnreadable) { db in
            let cursor = try Row.fetchCursor(
                db, sql: "SELECT \(StoreSchema.Documents.id), \(StoreSchema.Documents.tree) FROM \(StoreSchema.Documents.table) "
                    + "ORDER BY \(StoreSchema.Documents.id)")
            var ids: [String] = []
            while ids.count < limit, let row = try cursor.next() {
                let bytes: [UInt8] = try row.withUnsafeData(atIndex: 1) { data in data.map { Array($0) } ?? [] }
                if try !RevisionTree(decoding: bytes).conflicts.isEmpty { ids.append(row[0]) }
            }
            return ids
        }
    }
}
