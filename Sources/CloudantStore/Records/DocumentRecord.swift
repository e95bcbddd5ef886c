internal import CloudantCore
internal import Foundation
internal import GRDB

/// One row of `documents`: a document's tree and its winner. Internal to the storage layer.
struct DocumentRecord {
    private typealias Columns = StoreSchema.Documents

    var rowID: Int64?
    var id: String
    var tree: RevisionTree
    /// The tree's winner, kept beside it while the record is in memory (the row stores only the tree).
    var winnerRev: RevisionID
    var deleted: Bool
    var seq: Int64
    var kind: String?
    /// The winner's body (JSON bytes without `_` members); nil only when the winner's body was never
    /// received (a replicated stub history).
    var body: [UInt8]?
    /// The winner's attachment metadata (storage JSON bytes); nil when it has none.
    var attachments: [UInt8]?

    static let selectColumns = selectColumns(table: nil)

    /// ``selectColumns`` with NULL for the kind, the body and the attachments, for reads that need only the tree.
    static let selectColumnsWithoutBodies = [
        Columns.rowID, Columns.id, Columns.tree, Columns.deleted, Columns.seq, "NULL", "NULL", "NULL",
    ].joined(separator: ", ")

    /// ``selectColumns`` with NULL for the kind, for reads of many documents that need no kind (a view build
    /// or a changes feed reads every document: the kind's name would cost a lookup each).
    static let selectColumnsWithoutKind = [
        Columns.rowID, Columns.id, Columns.tree, Columns.deleted, Columns.seq, "NULL", Columns.body, Columns.attachments,
    ].joined(separator: ", ")

    /// Where ``selectColumns`` puts each column, for readers that take a row apart themselves.
    enum Column: Int, CaseIterable {
        case rowID, id, tree, deleted, seq, kind, body, attachments
    }

    /// The columns ``init(row:)`` reads, qualified by a table alias for joins.
    static func selectColumns(table: String?) -> String {
        let prefix = table.map { $0 + "." } ?? ""
        return [
            prefix + Columns.rowID, prefix + Columns.id, prefix + Columns.tree, prefix + Columns.deleted, prefix + Columns.seq,
            StoreSchema.DocumentKinds.name(of: prefix + Columns.kind), prefix + Columns.body, prefix + Columns.attachments,
        ].joined(separator: ", ")
    }

    init(
        rowID: Int64?, id: String, tree: RevisionTree, winnerRev: RevisionID, deleted: Bool, seq: Int64,
        kind: String?, body: [UInt8]?, attachments: [UInt8]?
    ) {
        self.rowID = rowID
        self.id = id
        self.tree = tree
        self.winnerRev = winnerRev
        self.deleted = deleted
        self.seq = seq
        self.kind = kind
        self.body = body
        self.attachments = attachments
    }

    /// The record in a row of a ``selectColumns`` query read on `db` (whose codec decodes the body).
    init(row: Row, in db: Database) throws {
        rowID = row[Column.rowID.rawValue]
        id = row[Column.id.rawValue]
        let treeBytes: Data = row[Column.tree.rawValue]
        tree = try RevisionTree(decoding: Array(treeBytes))
        winnerRev = try Self.winner(of: tree)
        deleted = row[Column.deleted.rawValue]
        seq = row[Column.seq.rawValue]
        kind = row[Column.kind.rawValue]
        body = try (row[Column.body.rawValue] as Data?).map { stored in
            try BodyCodec.decode(stored, in: db)
        }
        attachments = (row[Column.attachments.rawValue] as Data?).map { Array($0) }
    }

    /// A stored tree's winner; a row's tree always has one.
    private static func winner(of tree: RevisionTree) throws -> RevisionID {
        guard let winner = tree.winner else {
            throw CloudantError(.storeUnreadable, "A document row's revision tree is empty.")
        }
        return winner
    }

    /// The statements every write or read of one document runs, built once: a statement's text built per
    /// call (interpolation, then hashing for GRDB's statement cache) was a visible cost of small writes.
    private enum SQL {
        /// The row's kind: the number of the name bound in its place (``StoreSchema/DocumentKinds``).
        static let kindNumber = StoreSchema.DocumentKinds.numberOfBoundName
        static let fetchByID = "SELECT \(selectColumns) FROM \(Columns.table) WHERE \(Columns.id) = ?"
        static let update =
            "UPDATE \(Columns.table) SET \(Columns.tree) = ?, \(Columns.deleted) = ?, "
            + "\(Columns.seq) = ?, \(Columns.kind) = \(kindNumber), \(Columns.body) = ?, \(Columns.attachments) = ? "
            + "WHERE \(Columns.rowID) = ?"
        static let insert =
            "INSERT INTO \(Columns.table) (\(Columns.id), \(Columns.tree), "
            + "\(Columns.deleted), \(Columns.seq), \(Columns.kind), \(Columns.body), \(Columns.attachments)) "
            + "VALUES (?, ?, ?, ?, \(kindNumber), ?, ?)"
        static let insertIfAbsent = insert + " ON CONFLICT(\(Columns.id)) DO NOTHING"
    }

    static func fetch(id: String, in db: Database) throws -> DocumentRecord? {
        let statement = try db.cachedStatement(sql: SQL.fetchByID)
        // Read straight from SQLite: every document read and every edit starts here (see `fetchFirstRow`).
        return try statement.fetchFirstRow(in: db) { $0.text(id) } read: { try DocumentRecord(direct: $0) }
    }

    /// The record in the current row of a ``selectColumns`` query read by ``Statement/fetchFirstRow(in:_:read:)``.
    private init(direct row: DirectRow) throws {
        guard let id = row.text(Column.id.rawValue), let tree = row.bytes(Column.tree.rawValue) else {
            throw CloudantError(.storeUnreadable, "A document row is missing its id or revision tree.")
        }
        rowID = row.integer(Column.rowID.rawValue)
        self.id = id
        self.tree = try RevisionTree(decoding: tree)
        winnerRev = try Self.winner(of: self.tree)
        deleted = (row.integer(Column.deleted.rawValue) ?? 0) != 0
        seq = row.integer(Column.seq.rawValue) ?? 0
        kind = row.text(Column.kind.rawValue)
        body = try row.withBody(Column.body.rawValue) { $0.map(Array.init) }
        attachments = row.bytes(Column.attachments.rawValue)
    }

    /// The winner's revision, deletion flag, sequence and body of a document, without building its tree (what
    /// an import comparing its documents with the stored ones needs).
    static func fetchWinner(id: String, in db: Database) throws -> (rev: String, deleted: Bool, seq: Int64, body: [UInt8]?)? {
        let statement = try db.cachedStatement(
            sql: "SELECT \(Columns.tree), \(Columns.deleted), \(Columns.seq), \(Columns.body) FROM \(Columns.table) "
                + "WHERE \(Columns.id) = ?")
        return try statement.fetchFirstRow(in: db) { $0.text(id) } read: { row in
            (try row.winner(0).description, (row.integer(1) ?? 0) != 0, row.integer(2) ?? 0, try row.withBody(3) { $0.map(Array.init) })
        }
    }

    /// Only the revision tree of a document (what `_revs_diff` needs), without reading its body.
    static func fetchTree(id: String, in db: Database) throws -> RevisionTree? {
        let statement = try db.cachedStatement(sql: "SELECT \(Columns.tree) FROM \(Columns.table) WHERE \(Columns.id) = ?")
        return try Data.fetchOne(statement, arguments: [id]).map { try RevisionTree(decoding: Array($0)) }
    }

    /// Inserts or updates the row, setting `rowID` on insert.
    mutating func save(in db: Database) throws {
        // Bound directly: every write runs this once per document (see `DirectBinding`).
        let codec = BodyCodec.of(db)
        try Self.recordKind(kind, in: db)
        if let rowID {
            let statement = try db.cachedStatement(sql: SQL.update)
            try statement.executeBound(in: db) { bind in
                bindRevisionColumns(&bind, codec: codec)
                bind.integer(rowID)
            }
        } else {
            let statement = try db.cachedStatement(sql: SQL.insert)
            try statement.executeBound(in: db) { bind in
                bind.text(id)
                bindRevisionColumns(&bind, codec: codec)
            }
            rowID = db.lastInsertedRowID
        }
    }

    /// The columns after the id, in table order: tree, deleted, sequence, kind, body, attachments.
    private func bindRevisionColumns(_ bind: inout DirectBinding, codec: BodyCodec) {
        Self.bindRevisionColumns(
            &bind, encodedTree: tree.encoded(), deleted: deleted, seq: seq, kind: kind,
            body: body, attachments: attachments, codec: codec)
    }

    private static func bindRevisionColumns(
        _ bind: inout DirectBinding, encodedTree: [UInt8], deleted: Bool, seq: Int64, kind: String?,
        body: [UInt8]?, attachments: [UInt8]?, codec: BodyCodec
    ) {
        bind.blob(encodedTree)
        bind.integer(deleted ? 1 : 0)
        bind.integer(seq)
        bind.text(kind)
        bind.storedBody(body, kind: kind, codec: codec)
        bind.text(utf8: attachments)
    }

    /// Inserts the row unless a document with its id exists; returns whether it was inserted.
    func insertIfAbsent(in db: Database) throws -> Bool {
        try Self.insertIfAbsent(
            id: id, encodedTree: tree.encoded(), deleted: deleted, seq: seq, kind: kind,
            body: body, attachments: attachments, in: db)
    }

    /// Inserts a row whose tree is already in storage form unless a document with its id exists; returns
    /// whether it was inserted.
    static func insertIfAbsent(
        id: String, encodedTree: [UInt8], deleted: Bool, seq: Int64, kind: String?, body: [UInt8]?,
        attachments: [UInt8]?, in db: Database
    ) throws -> Bool {
        try recordKind(kind, in: db)
        let statement = try db.cachedStatement(sql: SQL.insertIfAbsent)
        let codec = BodyCodec.of(db)
        // Bound directly: bulk writes and the import run this once per document (see `DirectBinding`).
        try statement.executeBound(in: db) { bind in
            bind.text(id)
            bindRevisionColumns(
                &bind, encodedTree: encodedTree, deleted: deleted, seq: seq, kind: kind, body: body,
                attachments: attachments, codec: codec)
        }
        return db.changesCount > 0
    }

    /// Adds `kind` to the store's kinds unless it has it, so the row's write finds its number. A kind added by
    /// a transaction that rolls back goes with it, and rows only ever name kinds that are committed with them.
    private static func recordKind(_ kind: String?, in db: Database) throws {
        guard let kind else { return }
        try db.cachedStatement(sql: StoreSchema.DocumentKinds.insertBoundName).executeBound(in: db) { $0.text(kind) }
    }

    static func delete(rowID: Int64, in db: Database) throws {
        try db.execute(sql: "DELETE FROM \(Columns.table) WHERE \(Columns.rowID) = ?", arguments: [rowID])
    }
}

/// A stored revision body other than the winner's. Internal to the storage layer.
struct RevisionBody {
    private typealias Columns = StoreSchema.RevisionBodies

    var body: [UInt8]
    var attachments: [UInt8]?

    static func fetch(documentRowID: Int64, rev: RevisionID, in db: Database) throws -> RevisionBody? {
        let statement = try db.cachedStatement(
            sql: "SELECT \(Columns.body), \(Columns.attachments) FROM \(Columns.table) "
                + "WHERE \(Columns.documentRowID) = ? AND \(Columns.rev) = ?")
        guard let row = try Row.fetchOne(statement, arguments: [documentRowID, rev.description]) else { return nil }
        let stored: Data = row[0]
        let body = try BodyCodec.decode(stored, in: db)
        let attachments: Data? = row[1]
        return RevisionBody(body: body, attachments: attachments.map { Array($0) })
    }

    /// Stores the body, compressed as the store compresses `kind`'s bodies.
    func save(documentRowID: Int64, rev: RevisionID, kind: String?, in db: Database) throws {
        let codec = BodyCodec.of(db)
        let statement = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO \(Columns.table) (\(Columns.documentRowID), \(Columns.rev), \(Columns.body), "
                + "\(Columns.attachments)) VALUES (?, ?, ?, ?)")
        try statement.executeBound(in: db) { bind in
            bind.integer(documentRowID)
            bind.text(rev.description)
            bind.storedBody(body, kind: kind, codec: codec)
            bind.text(utf8: attachments)
        }
    }

    static func delete(documentRowID: Int64, revs: [RevisionID], in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: "DELETE FROM \(Columns.table) WHERE \(Columns.documentRowID) = ? AND \(Columns.rev) = ?")
        for rev in revs { try statement.execute(arguments: [documentRowID, rev.description]) }
    }

    static func revisions(documentRowID: Int64, in db: Database) throws -> [String] {
        try String.fetchAll(
            db, sql: "SELECT \(Columns.rev) FROM \(Columns.table) WHERE \(Columns.documentRowID) = ?",
            arguments: [documentRowID])
    }
}
