public import CloudantCore

/// The outcome of writing one document: the id and the new revision.
public struct WriteResult: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// The revision the write created.
    public var rev: String

    /// Creates a result.
    public init(id: String, rev: String) {
        self.id = id
        self.rev = rev
    }

    /// CouchDB's response body: `{"ok":true,"id":…,"rev":…}`.
    public var json: JSONValue { ["ok": true, "id": .string(id), "rev": .string(rev)] }
}

/// One entry of a `_bulk_docs` response (spec D-46): the document was written, or it failed on its own.
public enum BulkDocsResult: Sendable {
    /// The document was written.
    case ok(WriteResult)
    /// The document failed; the others in the batch are unaffected.
    case failure(id: String?, error: CloudantError)

    /// The entry as CouchDB writes it: `{"ok":true,"id","rev"}` or `{"id","error","reason"}`.
    public var json: JSONValue {
        switch self {
        case .ok(let result):
            return result.json
        case .failure(let id, let error):
            var object = JSONObject()
            if let id { object["id"] = .string(id) }
            // CouchDB 3 writes conflict rows as {"id","error","reason"}; other errors may name the revision.
            if error.code != .conflict, let rev = error.context.revision { object["rev"] = .string(rev) }
            object["error"] = .string(error.couchDB.error)
            object["reason"] = .string(error.couchDBReason)
            return .object(object)
        }
    }

    /// The written result, or `nil` for a failure.
    public var result: WriteResult? {
        if case .ok(let result) = self { return result }
        return nil
    }

    /// The error, or `nil` when the document was written.
    public var error: CloudantError? {
        if case .failure(_, let error) = self { return error }
        return nil
    }
}
