public import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    private typealias Local = StoreSchema.LocalDocuments

    /// Writes a `_local/` document: no history, not in changes or `_all_docs`, never replicated (spec D-34).
    ///
    /// Revisions are `0-N`. Like PouchDB (and unlike CouchDB's last-writer-wins), an update must name the
    /// current revision (spec D-35).
    /// - Throws: ``CloudantError`` `.conflict` when `rev` is not the stored revision, `.invalidValue` for a
    ///   non-local id.
    @discardableResult
    public func putLocal(id: String, body: JSONObject, rev: String? = nil) async throws -> WriteResult {
        try Self.validateLocal(id)
        var cleaned = body
        for key in cleaned.keys where key.hasPrefix("_") { cleaned.removeValue(forKey: key) }
        let bytes = String(decoding: JSONValue.object(cleaned).jsonBytes(), as: UTF8.self)
        return try await write(.updateFailed) { db in
            let stored = try Int64.fetchOne(
                db, sql: "SELECT \(Local.rev) FROM \(Local.table) WHERE \(Local.id) = ?", arguments: [id])
            let supplied = try rev.map { try Self.localRevision($0, id: id) }
            guard stored == supplied else {
                throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id, revision: rev))
            }
            let next = (stored ?? 0) + 1
            try db.execute(
                sql: "INSERT OR REPLACE INTO \(Local.table) (\(Local.id), \(Local.rev), \(Local.body)) VALUES (?, ?, ?)",
                arguments: [id, next, bytes])
            return WriteResult(id: id, rev: "0-\(next)")
        }
    }

    /// Reads a `_local/` document.
    /// - Throws: ``CloudantError`` `.notFound` when it does not exist.
    public func localDocument(id: String) async throws -> JSONObject {
        try Self.validateLocal(id)
        let row = try await read(.fetchFailed) { db in
            try Row.fetchOne(
                db, sql: "SELECT \(Local.rev), \(Local.body) FROM \(Local.table) WHERE \(Local.id) = ?", arguments: [id]
            ).map { row -> (Int64, Data) in (row[0], row[1]) }
        }
        guard let (rev, bytes) = row, case .object(let body) = try JSONValue(parsing: Array(bytes)) else {
            throw CloudantError(.notFound, "missing", context: .init(documentID: id))
        }
        var document: JSONObject = ["_id": .string(id), "_rev": .string("0-\(rev)")]
        for (key, value) in body.members { document[key] = value }
        return document
    }

    /// Deletes a `_local/` document; the revision must be the stored one.
    /// - Throws: ``CloudantError`` `.notFound` or `.conflict`.
    @discardableResult
    public func deleteLocal(id: String, rev: String) async throws -> WriteResult {
        try Self.validateLocal(id)
        let supplied = try Self.localRevision(rev, id: id)
        return try await write(.deleteFailed) { db in
            let stored = try Int64.fetchOne(
                db, sql: "SELECT \(Local.rev) FROM \(Local.table) WHERE \(Local.id) = ?", arguments: [id])
            guard let stored else { throw CloudantError(.notFound, "missing", context: .init(documentID: id)) }
            guard stored == supplied else {
                throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id, revision: rev))
            }
            try db.execute(sql: "DELETE FROM \(Local.table) WHERE \(Local.id) = ?", arguments: [id])
            return WriteResult(id: id, rev: "0-0")
        }
    }

    private static func validateLocal(_ id: String) throws {
        try DocumentID.validate(id)
        guard DocumentID.isLocal(id) else {
            throw CloudantError(
                .invalidValue, "Local document ids start with '_local/'.", context: .init(documentID: id, field: "_id"))
        }
    }

    private static func localRevision(_ rev: String, id: String) throws -> Int64 {
        guard rev.hasPrefix("0-"), let number = Int64(rev.dropFirst(2)) else {
            throw CloudantError(
                .invalidValue, "Local document revisions look like \"0-N\".",
                context: .init(documentID: id, revision: rev, field: "_rev"))
        }
        return number
    }
}
