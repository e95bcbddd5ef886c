internal import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    private typealias Local = StoreSchema.LocalDocuments

    /// Lists `_local/` documents by id in raw byte order, as CouchDB's `/{db}/_local_docs` does: the range, order,
    /// `skip` and `limit` of ``AllDocsOptions`` (ids are full, `_local/…`), and `keys` for chosen ids (ids outside
    /// `_local/` dropped, a missing one answered `not_found`).
    ///
    /// Rows are `{"id", "key", "value": {"rev"}}` with `doc` when ``AllDocsOptions/includeDocs``; CouchDB counts no
    /// total and no offset for local documents, so ``AllDocsResult/totalRows`` is the number of rows and
    /// ``AllDocsResult/offset`` is nil. Unless `includeSystem`, a purge or shard-sync checkpoint CouchDB keeps for
    /// itself (`_local/purge-…` with `purge_seq`, `_local/shard-sync…` with `target_uuid` and `seq`) is left out.
    /// - Throws: `CloudantError` `.storeUnreadable` when the database cannot be read.
    public func localDocs(_ options: AllDocsOptions = AllDocsOptions(), includeSystem: Bool = false) async throws -> AllDocsResult {
        let documents: [JSONObject]
        if let keys = options.keys {
            var found: [JSONObject] = []
            for key in keys.dropFirst(options.skip).prefix(options.limit ?? Int.max) where DocumentID.isLocal(key) {
                if let document = try? await localDocument(id: key) {
                    found.append(document)
                } else {
                    found.append(["key": .string(key), "error": "not_found"])
                }
            }
            let rows = found.map { document -> JSONValue in
                document["error"] != nil ? .object(document) : Self.localRow(document, includeDocs: options.includeDocs)
            }
            return AllDocsResult(totalRows: rows.count, offset: nil, rows: rows)
        }
        documents = try await read(.storeUnreadable) { db in
            let (conditions, arguments) = options.idRangeConditions(column: Local.id)
            let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
            let sql =
                "SELECT \(Local.id), \(Local.rev), \(Local.body) FROM \(Local.table) \(filter) "
                + "ORDER BY \(Local.id) \(options.descending ? "DESC" : "ASC")"
            return try Row.fetchAll(db, sql: sql, arguments: arguments).compactMap { row -> JSONObject? in
                let id: String = row[0]
                let rev: Int64 = row[1]
                let bytes: Data = row[2]
                guard case .object(let body) = try JSONValue(parsing: Array(bytes)) else { return nil }
                var document: JSONObject = ["_id": .string(id), "_rev": .string("0-\(rev)")]
                for (key, value) in body.members { document[key] = value }
                return document
            }
        }
        let rows = documents.filter { includeSystem || !Self.isSystemCheckpoint($0) }
            .dropFirst(options.skip).prefix(options.limit ?? Int.max)
            .map { Self.localRow($0, includeDocs: options.includeDocs) }
        return AllDocsResult(totalRows: rows.count, offset: nil, rows: Array(rows))
    }

    private static func localRow(_ document: JSONObject, includeDocs: Bool) -> JSONValue {
        let id = document["_id"] ?? .null
        var row: JSONObject = ["id": id, "key": id, "value": ["rev": document["_rev"] ?? .null]]
        if includeDocs { row["doc"] = .object(document) }
        return .object(row)
    }

    /// CouchDB's own checkpoints that `_local_docs` hides unless `include_system=true`
    /// (`couch_mrview:should_skip_local_document/2`).
    private static func isSystemCheckpoint(_ document: JSONObject) -> Bool {
        let id = document["_id"]?.stringValue ?? ""
        if id.hasPrefix("_local/purge-") { return document["purge_seq"] != nil }
        if id.hasPrefix("_local/shard-sync") { return document["target_uuid"] != nil && document["seq"] != nil }
        return false
    }
}
