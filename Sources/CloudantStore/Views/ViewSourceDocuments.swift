internal import CloudantCore
internal import Foundation
internal import GRDB

/// A changed document as a view index's updater reads it: its id and sequence, and, when it is live and its
/// index maps it, its JSON as CouchDB hands documents to map functions.
struct ViewSourceDocument: Sendable {
    /// The document's row in the documents table.
    var rowID: Int64
    var id: String
    var seq: Int64
    /// `{"_id", "_rev", …body, "_conflicts", "_deleted_conflicts", "_local_seq", "_attachments"}`; nil for a
    /// deleted document or one the index does not map (its rows go).
    var json: [UInt8]?
}

/// Reads documents for view indexes (in sequence order to keep an index up to date), and for the Mango
/// indexes that read metadata (``IndexedDocument``): CouchDB's
/// `couch_index_updater` loads each changed document with its conflicts and deleted conflicts (and
/// `_local_seq` for a design document that asks for it), skips design documents unless the index includes
/// them, and removes the rows of deleted ones.
enum ViewSourceDocuments {
    private typealias Columns = StoreSchema.Documents

    /// How documents are read: in the order they changed (an incremental update, which moves the index's
    /// sequence a batch at a time), or in the table's own order (a first build, which maps every document of
    /// one snapshot and sorts the rows anyway: a scan of the table costs no index search per document).
    enum Order {
        case sequence
        case rowID

        var column: String { self == .sequence ? Columns.seq : Columns.rowID }
    }

    /// The next `limit` documents after `position` in `order` (a sequence, or a row id).
    ///
    /// Rows are read in place (``DirectRow``): a build reads every document of the store through here, and
    /// GRDB's rows with their value conversions, a revision tree decoded per document and a copy of each body
    /// cost more than the reading itself. A tree of one revision has no conflicts, so it is not decoded.
    static func read(
        after position: Int64, by order: Order = .sequence, limit: Int, includeDesign: Bool, localSeq: Bool, in db: Database
    ) throws -> [ViewSourceDocument] {
        let statement = try db.cachedStatement(
            sql: "SELECT \(DocumentRecord.selectColumnsWithoutKind) FROM \(Columns.table) WHERE \(order.column) > ? "
                + "ORDER BY \(order.column) LIMIT ?")
        statement.bind([.integer(position), .integer(Int64(limit))])
        var documents: [ViewSourceDocument] = []
        documents.reserveCapacity(limit)
        try statement.forEachRow(in: db) { row in
            typealias Column = DocumentRecord.Column
            guard let id = row.text(Column.id.rawValue) else {
                throw CloudantError(.storeUnreadable, "A document row is missing its id.")
            }
            let seq = row.integer(Column.seq.rawValue) ?? 0
            let mapped = (row.integer(Column.deleted.rawValue) ?? 0) == 0 && (includeDesign || !DocumentID.isDesign(id))
            let json = try mapped ? row.withBody(Column.body.rawValue) { body in
                try body.map { body in
                    try row.withBytes(Column.tree.rawValue) { tree in
                        let tree = tree ?? UnsafeBufferPointer(start: nil, count: 0)
                        let attachments = row.bytes(Column.attachments.rawValue)
                        return try row.withWinnerText(Column.tree.rawValue) { winnerRev in
                            Result {
                                try Self.json(
                                    id: id, winnerRev: winnerRev, body: body, tree: tree, seq: localSeq ? seq : nil,
                                    attachments: attachments)
                            }
                        }.get()
                    }
                }
            } : nil
            documents.append(ViewSourceDocument(rowID: row.integer(Column.rowID.rawValue) ?? 0, id: id, seq: seq, json: json))
            return true
        }
        return documents
    }

    /// The document as map functions see it. The body is spliced in as stored, never parsed again; `seq` is
    /// given when the design document asks for `_local_seq`. `winnerRev` is the winning revision's text.
    static func json(
        id: String, winnerRev: UnsafeBufferPointer<UInt8>, body: UnsafeBufferPointer<UInt8>, tree: UnsafeBufferPointer<UInt8>,
        seq: Int64?, attachments: [UInt8]?
    ) throws -> [UInt8] {
        // Written into one buffer sized for the whole document: a build assembles every document once.
        var writer = JSONWriter(capacity: body.count + id.utf8.count + winnerRev.count + 32)
        writer.appendRaw(#"{"_id":"#)
        writer.write(id)
        writer.appendRaw(#","_rev":""#)
        writer.appendRaw(winnerRev)
        writer.appendRaw(#"""#)
        // The stored body is an object's compact text: its members follow `_rev` after a comma.
        if body.count > 2 {
            writer.appendRaw(",")
            writer.appendRaw(UnsafeBufferPointer(rebasing: body[1..<(body.count - 1)]))
        }
        if !RevisionTree.encodesSingleRevision(tree) {
            let tree = try RevisionTree(decoding: tree)
            if tree.leaves.count > 1 {
                let conflicts = tree.conflicts
                if !conflicts.isEmpty {
                    writer.appendRaw(#","_conflicts":"#)
                    writer.write(JSONValue.array(conflicts.map { .string($0.description) }))
                }
                let deletedConflicts = tree.deletedConflicts
                if !deletedConflicts.isEmpty {
                    writer.appendRaw(#","_deleted_conflicts":"#)
                    writer.write(JSONValue.array(deletedConflicts.map { .string($0.description) }))
                }
            }
        }
        if let seq {
            writer.appendRaw(#","_local_seq":"#)
            writer.write(JSONValue.number(JSONNumber(seq)))
        }
        if let attachments {
            let table = try AttachmentTable(storageJSON: JSONValue(parsing: attachments))
            if !table.isEmpty {
                var object = JSONObject()
                for name in table.sortedNames { if let info = table.entries[name] { object[name] = info.stub() } }
                writer.appendRaw(#","_attachments":"#)
                writer.write(JSONValue.object(object))
            }
        }
        writer.appendRaw("}")
        return writer.output
    }
}
