internal import CloudantCore

/// A `POST /{db}/_index/_bulk_delete` body, checked as `mango_opts:validate_bulk_delete/1` checks it: `docids`
/// is required and an array whose entries `validate_use_index/1` accepts (a design document id with or
/// without `_design/`, optionally followed by `/` and an index name), `w` is a positive integer, and no other
/// key is allowed, the first failure in that order answering with CouchDB's error and reason.
struct BulkIndexDeletion {
    /// The design documents whose indexes go, each as `_design/…`, in the request's order.
    var designDocumentIDs: [String]

    init(_ body: JSONObject) throws(CloudantError) {
        guard let docids = body["docids"] else {
            throw QueryErrorKind.missingRequiredKey.error("Missing required key: docids", field: "docids")
        }
        guard case .array(let entries) = docids else {
            throw QueryErrorKind.invalidBulkDocs.error(
                "Bulk Delete requires an array of non-null docids. Docids: \(ErlangTerm.format(docids))", field: "docids")
        }
        var ids: [String] = []
        for entry in entries {
            switch entry {
            case .string(let name):
                let parts = name.split(separator: "/", omittingEmptySubsequences: false)
                let valid = parts.count == 1 || parts.count == 2 || (parts.count == 3 && parts[0] == "_design")
                guard valid else { throw Self.invalidName(entry) }
                ids.append(name.hasPrefix("_design/") ? name : "_design/" + name)
            case .null, .array([]):
                // Accepted by the check, and then not a name CouchDB can delete by (its handler fails on
                // them); nothing to delete here.
                continue
            case .array(let names) where (1...2).contains(names.count) && names.allSatisfy({ $0.stringValue != nil }):
                continue
            default:
                throw Self.invalidName(entry)
            }
        }
        if let w = body["w"], !(w.numberValue.map { if case .integer(let n) = $0 { n > 0 } else { false } } ?? false) {
            throw QueryErrorKind.invalidPosInteger.error("\(ErlangTerm.format(w)) is not an integer greater than zero", field: "w")
        }
        if let other = body.keys.first(where: { $0 != "docids" && $0 != "w" }) {
            throw QueryErrorKind.invalidKey.error("Invalid key \(other) for this request.", field: other)
        }
        designDocumentIDs = ids
    }

    private static func invalidName(_ entry: JSONValue) -> CloudantError {
        QueryErrorKind.invalidIndexName.error("Invalid index name: \(ErlangTerm.format(entry))", field: "docids")
    }
}
