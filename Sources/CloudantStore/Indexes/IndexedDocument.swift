internal import CloudantCore
internal import GRDB

/// A document as CouchDB's indexer hands it to a Mango JSON index: `_id`, `_rev`, the body, then `_conflicts`,
/// `_deleted_conflicts` and the `_attachments` stubs when it has them.
///
/// CouchDB builds Mango JSON indexes as views: `couch_index_updater` opens each document with its conflicts and
/// deleted conflicts, and the index's fields and partial filter see the whole object. So an index on
/// `_conflicts` lists the documents in conflict, and one on `_rev` orders by the winning revision. The store
/// keeps those members outside the body; an index that names one (``StoredIndex/readsMetadata``) reads the
/// document through here, as a view does (``ViewSourceDocuments``).
enum IndexedDocument {
    /// The members a stored body lacks that CouchDB's indexer adds (`_local_seq` only for a view whose design
    /// document asks for it, which a Mango index's never does).
    static let metadataMembers: Set<String> = ["_rev", "_conflicts", "_deleted_conflicts", "_attachments"]

    /// Whether a selector names one of ``metadataMembers`` as a field anywhere (operators start with `$`,
    /// so a member name is a field or part of a dotted path).
    static func namesMetadata(_ selector: JSONValue) -> Bool {
        switch selector {
        case .object(let object):
            object.members.contains { name, value in
                let first = name.split(separator: ".", maxSplits: 1).first.map(String.init) ?? name
                return metadataMembers.contains(first) || namesMetadata(value)
            }
        case .array(let elements): elements.contains(where: namesMetadata)
        default: false
        }
    }

    /// The live document in row `rowID` of the documents table as the indexer sees it; nil when the row is
    /// deleted, gone, or a design document (Mango indexes hold none).
    static func read(rowID: Int64, in db: Database) throws -> JSONObject? {
        let documents = try ViewSourceDocuments.read(
            after: rowID - 1, by: .rowID, limit: 1, includeDesign: false, localSeq: false, in: db)
        guard let document = documents.first, document.rowID == rowID, let json = document.json else { return nil }
        guard case .object(let object) = try JSONValue(parsing: json) else { return nil }
        return object
    }

    /// Every live document after row `rowID`, up to `limit`, as the indexer sees it, with its row and id; the
    /// row of the last one read (live or not), or nil at the end.
    static func batch(after rowID: Int64, limit: Int, in db: Database) throws -> (documents: [(rowID: Int64, id: String, document: JSONObject)], last: Int64?) {
        let read = try ViewSourceDocuments.read(after: rowID, by: .rowID, limit: limit, includeDesign: false, localSeq: false, in: db)
        var documents: [(rowID: Int64, id: String, document: JSONObject)] = []
        for source in read {
            guard let json = source.json, case .object(let object) = try JSONValue(parsing: json) else { continue }
            documents.append((source.rowID, source.id, object))
        }
        return (documents, read.last?.rowID)
    }
}
