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
    /// `{"_id", "_rev", …body, "_conflicts", "_deleted_conflicts", "_local_seq", "_attachments"}`, or in the
    /// ``ViewSourceDocuments/Form/body`` form the stored body followed by its revision tree; nil for a deleted
    /// document or one the index does not map (its rows go).
    var json: [UInt8]?
    /// Where the body ends in ``json`` when it holds the stored body and its revision tree; nil when it holds
    /// the whole document.
    var bodyEnd: Int?
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

    /// What a document's ``ViewSourceDocument/json`` holds.
    enum Form {
        /// The whole document as CouchDB hands it to map functions, `_id` and `_rev` first.
        case assembled
        /// The stored body with the revision tree after it, for a map that reads members one by one (a Swift
        /// view's ``ViewDocument``): `_id` and `_rev` are made only when it asks for them, so a build does not
        /// write every document out again. A document with conflicts or attachments, or read with
        /// `_local_seq`, is still assembled: those members are rare and cost nothing to find then.
        case body
    }

    /// The next `limit` documents after `position` in `order` (a sequence, or a row id).
    ///
    /// Rows are read in place (``DirectRow``): a build reads every document of the store through here, and
    /// GRDB's rows with their value conversions, a revision tree decoded per document and a copy of each body
    /// cost more than the reading itself. A tree of one revision has no conflicts, so it is not decoded.
    static func read(
        after position: Int64, by order: Order = .sequence, limit: Int, includeDesign: Bool, localSeq: Bool,
        form: Form = .assembled, in db: Database
    ) throws -> [ViewSourceDocument] {
        var documents: [ViewSourceDocument] = []
        documents.reserveCapacity(limit)
        try forEach(after: position, by: order, limit: limit, includeDesign: includeDesign, localSeq: localSeq, form: form, in: db) {
            documents.append($0)
        }
        return documents
    }

    /// Calls `body` with each of the next `limit` documents after `position` in `order`, as ``read(after:by:limit:includeDesign:localSeq:form:in:)``
    /// reads them.
    ///
    /// With `reusingBuffer`, a document in the ``Form/body`` form is written into one array kept from document
    /// to document: once `body` has let go of a document, the next is written into the same storage, so a
    /// first build that maps each document as it is read allocates nothing per document for it (a document
    /// `body` keeps stays as it is: the next one is written into a new array).
    static func forEach(
        after position: Int64, by order: Order = .sequence, limit: Int, includeDesign: Bool, localSeq: Bool,
        form: Form = .assembled, reusingBuffer: Bool = false, in db: Database, _ body: (ViewSourceDocument) throws -> Void
    ) throws {
        let statement = try db.cachedStatement(
            sql: "SELECT \(DocumentRecord.selectColumnsWithoutKind) FROM \(Columns.table) WHERE \(order.column) > ? "
                + "ORDER BY \(order.column) LIMIT ?")
        statement.bind([.integer(position), .integer(Int64(limit))])
        var buffer: [UInt8] = []
        try statement.forEachRow(in: db) { row in
            typealias Column = DocumentRecord.Column
            guard let id = row.text(Column.id.rawValue) else {
                throw CloudantError(.storeUnreadable, "A document row is missing its id.")
            }
            let seq = row.integer(Column.seq.rawValue) ?? 0
            let mapped = (row.integer(Column.deleted.rawValue) ?? 0) == 0 && (includeDesign || !DocumentID.isDesign(id))
            var bodyEnd: Int?
            let json = try mapped ? row.withBody(Column.body.rawValue) { body in
                try body.map { body in
                    try row.withBytes(Column.tree.rawValue) { tree in
                        let tree = tree ?? UnsafeBufferPointer(start: nil, count: 0)
                        let attachments = row.bytes(Column.attachments.rawValue)
                        if form == .body, !localSeq, attachments == nil, RevisionTree.encodesSingleRevision(tree) {
                            bodyEnd = body.count
                            guard reusingBuffer else { return Self.bodyAndTree(body: body, tree: tree) }
                            buffer.removeAll(keepingCapacity: true)
                            buffer.append(contentsOf: body)
                            buffer.append(contentsOf: tree)
                            return buffer
                        }
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
            try body(ViewSourceDocument(rowID: row.integer(Column.rowID.rawValue) ?? 0, id: id, seq: seq, json: json, bodyEnd: bodyEnd))
            return true
        }
    }

    /// The stored body and the revision tree, back to back in one array (the ``Form/body`` form).
    private static func bodyAndTree(body: UnsafeBufferPointer<UInt8>, tree: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: body.count + tree.count) { buffer, count in
            guard let destination = buffer.baseAddress else { return count = 0 }
            if let base = body.baseAddress { destination.initialize(from: base, count: body.count) }
            if let base = tree.baseAddress { (destination + body.count).initialize(from: base, count: tree.count) }
            count = body.count + tree.count
        }
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
