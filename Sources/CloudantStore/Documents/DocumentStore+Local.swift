public import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    private typealias Local = StoreSchema.LocalDocuments

    /// Writes a `_local/` document: no history, not in changes or `_all_docs`, never replicated.
    ///
    /// Revisions are `0-N`. Like PouchDB (and unlike CouchDB's last-writer-wins), an update must name the
    /// current revision.
    /// - Throws: `CloudantError` `.conflict` when `rev` is not the stored revision, `.invalidInput` for a
    ///   non-local id.
    @discardableResult
    public func putLocal(id: String, body: JSONObject, rev: String? = nil) async throws -> WriteResult {
        try await putLocal(id: id, body: body, rev: rev, lastWriterWins: false)
    }

    /// Writes a `_local/` document; with `lastWriterWins`, as CouchDB 3 does over HTTP: no
    /// conflict check, and the new revision is the one named plus one (`0-1` when none is named).
    /// - Throws: `CloudantError` `.conflict` (unless `lastWriterWins`) when `rev` is not the stored
    ///   revision, `.invalidInput` for a non-local id or a malformed revision.
    @discardableResult
    public func putLocal(id: String, body: JSONObject, rev: String?, lastWriterWins: Bool) async throws -> WriteResult {
        try Self.validateLocal(id)
        return try await write(.storeUnwritable) { db in
            try LocalDocumentRecord.write(id: id, body: body, rev: rev, deleted: false, lastWriterWins: lastWriterWins, in: db)
        }
    }

    /// Reads a `_local/` document.
    /// - Throws: `CloudantError` `.notFound` when it does not exist.
    public func localDocument(id: String) async throws -> JSONObject {
        try Self.validateLocal(id)
        let row = try await read(.storeUnreadable) { db in
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
    /// - Throws: `CloudantError` `.notFound` or `.conflict`.
    @discardableResult
    public func deleteLocal(id: String, rev: String) async throws -> WriteResult {
        try await deleteLocal(id: id, rev: rev, lastWriterWins: false)
    }

    /// Deletes a `_local/` document; with `lastWriterWins`, whatever revision is stored (`rev` may then be
    /// nil): for a document only its writer changes, such as a checkpoint, where reading the revision first
    /// and deleting it after would be two steps another write could come between.
    /// - Throws: `CloudantError` `.notFound`, `.conflict` (unless `lastWriterWins`) when `rev` is not the
    ///   stored revision, `.invalidInput` for a non-local id or a malformed revision.
    @discardableResult
    public func deleteLocal(id: String, rev: String?, lastWriterWins: Bool) async throws -> WriteResult {
        try Self.validateLocal(id)
        return try await write(.storeUnwritable) { db in
            try LocalDocumentRecord.write(id: id, body: JSONObject(), rev: rev, deleted: true, lastWriterWins: lastWriterWins, in: db)
        }
    }

    private static func validateLocal(_ id: String) throws {
        try DocumentID.validate(id)
        guard DocumentID.isLocal(id) else {
            throw CloudantError(
                .invalidInput, "Local document ids start with '_local/'.", context: .init(documentID: id, field: "_id"))
        }
    }
}
