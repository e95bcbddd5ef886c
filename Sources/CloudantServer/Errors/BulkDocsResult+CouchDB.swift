public import CloudantCore
public import CloudantStore

/// A `_bulk_docs` result as CouchDB writes it.
extension BulkDocsResult {
    /// The entry as CouchDB writes it in a `_bulk_docs` response: `{"ok":true,"id","rev"}`, or
    /// `{"id","error","reason"}` with the error named as ``CouchErrorBody`` names it.
    public var json: JSONValue {
        switch self {
        case .ok(let result):
            return result.json
        case .failure(let id, let error):
            var object = JSONObject()
            if let id { object["id"] = .string(id) }
            // CouchDB 3 writes conflict rows as {"id","error","reason"}; other errors may name the revision.
            if error.code != .conflict, let rev = error.context.revision { object["rev"] = .string(rev) }
            let body = CouchErrorBody(error)
            object["error"] = .string(body.error)
            object["reason"] = body.reasonJSON
            return .object(object)
        }
    }
}
