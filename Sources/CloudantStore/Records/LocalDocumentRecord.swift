internal import CloudantCore
internal import GRDB

/// Writes `_local/` documents inside a write transaction. Internal to the storage layer.
enum LocalDocumentRecord {
    private typealias Local = StoreSchema.LocalDocuments

    /// Writes or deletes a local document. Like PouchDB (unlike CouchDB's last writer wins), the revision
    /// named must be the stored one: `0-N`, or none for a new document.
    static func write(
        id: String, body: JSONObject, rev: String?, deleted: Bool, lastWriterWins: Bool = false, in db: Database
    ) throws -> WriteResult {
        let stored = try Int64.fetchOne(
            db, sql: "SELECT \(Local.rev) FROM \(Local.table) WHERE \(Local.id) = ?", arguments: [id])
        let supplied = try rev.map { try revisionNumber($0, id: id) }
        guard lastWriterWins || stored == supplied else {
            throw CloudantError(
                .conflict, "Document update conflict. Read the local document for its current _rev.",
                context: .init(documentID: id, revision: rev))
        }
        if deleted {
            guard stored != nil else { throw CloudantError(.notFound, "missing", context: .init(documentID: id)) }
            try db.execute(sql: "DELETE FROM \(Local.table) WHERE \(Local.id) = ?", arguments: [id])
            return WriteResult(id: id, rev: "0-0")
        }
        var cleaned = body
        for key in cleaned.keys where key.hasPrefix("_") { cleaned.removeValue(forKey: key) }
        // CouchDB 3 numbers a local revision from the one the writer named, whatever is stored.
        let (next, overflow) = ((lastWriterWins ? supplied : stored) ?? 0).addingReportingOverflow(1)
        guard !overflow else {
            throw CloudantError(.invalidInput, "Invalid rev format", context: .init(documentID: id, revision: rev, field: "_rev"))
        }
        try db.execute(
            sql: "INSERT OR REPLACE INTO \(Local.table) (\(Local.id), \(Local.rev), \(Local.body)) VALUES (?, ?, ?)",
            arguments: [id, next, String(decoding: JSONValue.object(cleaned).jsonBytes(), as: UTF8.self)])
        return WriteResult(id: id, rev: "0-\(next)")
    }

    /// The `N` of a local revision `0-N`.
    static func revisionNumber(_ rev: String, id: String) throws -> Int64 {
        guard rev.hasPrefix("0-"), let number = Int64(rev.dropFirst(2)), number >= 0 else {
            throw CloudantError(
                .invalidInput, "Local document revisions look like \"0-N\".",
                context: .init(documentID: id, revision: rev, field: "_rev"))
        }
        return number
    }
}
