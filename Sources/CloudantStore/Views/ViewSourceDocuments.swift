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

/// Reads documents for view indexes (in sequence order to keep an index up to date): CouchDB's
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
                        return try Self.json(
                            id: id, winnerRev: row.winner(Column.tree.rawValue).description, body: body, tree: tree,
                            seq: localSeq ? seq : nil, attachments: row.bytes(Column.attachments.rawValue))
                    }
                }
            } : nil
            documents.append(ViewSourceDocument(rowID: row.integer(Column.rowID.rawValue) ?? 0, id: id, seq: seq, json: json))
            return true
        }
        return documents
    }

    /// The document as map functions see it. The body is spliced in as stored, never parsed again; `seq` is
    /// given when the design document asks for `_local_seq`.
    static func json(
        id: String, winnerRev: String, body: UnsafeBufferPointer<UInt8>, tree: UnsafeBufferPointer<UInt8>, seq: Int64?,
        attachments: [UInt8]?
    ) throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + id.utf8.count + 64)
        bytes += #"{"_id":"#.utf8
        bytes += JSONValue.string(id).jsonBytes()
        bytes += #","_rev":""#.utf8
        bytes += winnerRev.utf8
        bytes.append(UInt8(ascii: "\""))
        // The stored body is an object's compact text: its members follow `_rev` after a comma.
        if body.count > 2 {
            bytes.append(UInt8(ascii: ","))
            bytes += UnsafeBufferPointer(rebasing: body[1..<(body.count - 1)])
        }
        if !RevisionTree.encodesSingleRevision(tree) {
            let tree = try RevisionTree(decoding: tree)
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
        }
        if let seq {
            bytes += #","_local_seq":"#.utf8
            bytes += String(seq).utf8
        }
        if let attachments {
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
