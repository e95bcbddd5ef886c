internal import CloudantCore
internal import Foundation
internal import GRDB

/// A changed document as a view index's updater reads it: its id and sequence, and, when it is live and its
/// index maps it, its JSON as CouchDB hands documents to map functions.
struct ViewSourceDocument: Sendable {
    var id: String
    var seq: Int64
    /// `{"_id", "_rev", …body, "_conflicts", "_deleted_conflicts", "_local_seq", "_attachments"}`; nil for a
    /// deleted document or one the index does not map (its rows go).
    var json: [UInt8]?
}

/// Reads documents in sequence order for view indexes: CouchDB's `couch_index_updater` loads each changed
/// document with its conflicts and deleted conflicts (and `_local_seq` for a design document that asks for
/// it), skips design documents unless the index includes them, and removes the rows of deleted ones.
enum ViewSourceDocuments {
    private typealias Columns = StoreSchema.Documents

    /// The next `limit` documents changed after `seq`.
    static func changed(
        after seq: Int64, limit: Int, includeDesign: Bool, localSeq: Bool, in db: Database
    ) throws -> [ViewSourceDocument] {
        let statement = try db.cachedStatement(
            sql: "SELECT \(DocumentRecord.selectColumns) FROM \(Columns.table) WHERE \(Columns.seq) > ? "
                + "ORDER BY \(Columns.seq) LIMIT ?")
        var documents: [ViewSourceDocument] = []
        documents.reserveCapacity(limit)
        let rows = try Row.fetchCursor(statement, arguments: [seq, limit])
        while let row = try rows.next() {
            let record = try DocumentRecord(row: row)
            guard !record.deleted, record.body != nil, includeDesign || !DocumentID.isDesign(record.id) else {
                documents.append(ViewSourceDocument(id: record.id, seq: record.seq, json: nil))
                continue
            }
            documents.append(ViewSourceDocument(id: record.id, seq: record.seq, json: try json(of: record, localSeq: localSeq)))
        }
        return documents
    }

    /// The document as map functions see it. The body is spliced in as stored, never parsed again.
    static func json(of record: DocumentRecord, localSeq: Bool) throws -> [UInt8] {
        guard let body = record.body else { return [] }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + record.id.utf8.count + 64)
        bytes += #"{"_id":"#.utf8
        bytes += JSONValue.string(record.id).jsonBytes()
        bytes += #","_rev":""#.utf8
        bytes += record.winnerRev.description.utf8
        bytes.append(UInt8(ascii: "\""))
        // The stored body is an object's compact text: its members follow `_rev` after a comma.
        if body.count > 2 {
            bytes.append(UInt8(ascii: ","))
            bytes += body[1..<(body.count - 1)]
        }
        let tree = record.tree
        if tree.leaves.count > 1 {
            let conflicts = tree.conflicts
            if !conflicts.isEmpty {
                bytes += #","_conflicts":"#.utf8
                bytes += JSONValue.array(conflicts.map { .string($0.description) }).jsonBytes()
            }
            let deletedConflicts = tree.deletedConflicts
            if !deletedConflicts.isEmpty {
                bytes += #","_deleted_conflicts":"#.utf8
                bytes += JSONValue.array(deletedConflicts.map { .string($0.description) }).jsonBytes()
            }
        }
        if localSeq {
            bytes += #","_local_seq":"#.utf8
            bytes += String(record.seq).utf8
        }
        if let attachments = record.attachments {
            let table = try AttachmentTable(storageJSON: JSONValue(parsing: attachments))
            if !table.isEmpty {
                var object = JSONObject()
                for name in table.sortedNames { if let info = table.entries[name] { object[name] = info.stub() } }
                bytes += #","_attachments":"#.utf8
                bytes += JSONValue.object(object).jsonBytes()
            }
        }
        bytes.append(UInt8(ascii: "}"))
        return bytes
    }
}
