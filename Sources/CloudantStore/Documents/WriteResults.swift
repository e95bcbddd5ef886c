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

/// One entry of a `_bulk_docs` response: the document was written, or it failed on its own.
///
/// The HTTP server writes it as CouchDB does (`{"ok":true,"id","rev"}` or `{"id","error","reason"}`); the error
/// names are CouchDB's, so they are the server's to choose, not the store's.
public enum BulkDocsResult: Sendable {
    /// The document was written.
    case ok(WriteResult)
    /// The document failed; the others in the batch are unaffected.
    case failure(id: String?, error: CloudantError)

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
