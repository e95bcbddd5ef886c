internal import CloudantCore
internal import Foundation
internal import GRDB

/// One index's rows: `view_<n>` holds a row per emitted key and value, ordered by view, collation key,
/// document id and the row's place among a document's rows with the same key (CouchDB's b-tree order), with
/// an index by document id to remove a document's rows when it changes. `view_states` holds each view's row
/// count and the last sequence that changed it. Internal to the storage layer; the table name is never user
/// text (``StoreSchema/nextTableName(prefix:recordedIn:column:in:)``).
enum ViewIndexTable {
    typealias Rows = StoreSchema.ViewIndexes.Rows
    private typealias States = StoreSchema.ViewIndexes.Counts

    static func create(_ table: String, in db: Database) throws {
        try createRows(table, in: db)
        try db.execute(sql: "CREATE INDEX \(table)_by_doc ON \(table)(\(Rows.documentID))")
    }

    static func createRows(_ table: String, in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE \(table) (
                    \(Rows.view) INTEGER NOT NULL,
                    \(Rows.key) BLOB NOT NULL,
                    \(Rows.documentID) TEXT NOT NULL,
                    \(Rows.duplicate) INTEGER NOT NULL,
                    \(Rows.keyJSON) TEXT NOT NULL,
                    \(Rows.valueJSON) TEXT NOT NULL,
                    PRIMARY KEY (\(Rows.view), \(Rows.key), \(Rows.documentID), \(Rows.duplicate))
                ) WITHOUT ROWID
                """)
    }

    static func drop(_ table: String, in db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS \(table); DROP TABLE IF EXISTS \(building(table))")
        try ViewReductionBlocks.drop(table, in: db)
    }

    /// Removes every row of `documentID`, keeping the view states' counts right.
    static func removeRows(of documentID: String, from table: String, in db: Database) throws {
        let removed = try Row.fetchAll(
            db, sql: "SELECT \(Rows.view), COUNT(*) FROM \(table) WHERE \(Rows.documentID) = ? GROUP BY \(Rows.view)",
            arguments: [documentID])
        guard !removed.isEmpty else { return }
        let blocks = try ViewReductionBlocks.Changes(table: table, in: db)
        if let blocks { try touchRows(of: documentID, in: table, blocks: blocks, db: db) }
        try db.execute(sql: "DELETE FROM \(table) WHERE \(Rows.documentID) = ?", arguments: [documentID])
        try blocks?.settle(in: db)
        for row in removed {
            let view: Int = row[0]
            let count: Int = row[1]
            try adjust(table, view: view, rows: -count, seq: nil, in: db)
        }
    }

    /// Takes the rows of `documentID` out of the reduction blocks they fall in (before they are removed).
    private static func touchRows(of documentID: String, in table: String, blocks: ViewReductionBlocks.Changes, db: Database) throws {
        var removed: [(view: Int, position: ViewReductionBlocks.Position, value: [UInt8])] = []
        let rows = try db.cachedStatement(
            sql: "SELECT \(Rows.key), \(Rows.documentID), \(Rows.view), \(Rows.duplicate), \(Rows.valueJSON) FROM \(table) "
                + "WHERE \(Rows.documentID) = ?")
        rows.bind([.text(documentID)])
        try rows.forEachRow(in: db) { row in
            removed.append(
                (Int(row.integer(2) ?? 0), ViewReductionBlocks.Position(row, key: 0, documentID: 1, duplicate: 3), row.bytes(4) ?? []))
            return true
        }
        for row in removed { try blocks.touch(view: row.view, at: row.position, keyJSON: [], value: row.value, added: false, in: db) }
    }

    /// Adds `rows` to a view's count and, when given, records `seq` as the last sequence that changed it.
    static func adjust(_ table: String, view: Int, rows: Int, seq: Int64?, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO \(States.table) (\(States.tableName), \(States.view), \(States.rows), \(States.updateSeq)) "
                + "VALUES (?, ?, ?, COALESCE(?, 0)) ON CONFLICT DO UPDATE SET \(States.rows) = \(States.rows) + excluded.\(States.rows), "
                + "\(States.updateSeq) = COALESCE(?, \(States.updateSeq))",
            arguments: [table, view, rows, seq, seq])
    }

    /// Each view's row count and last changing sequence.
    static func states(of table: String, in db: Database) throws -> [Int: (rows: Int, updateSeq: Int64)] {
        var states: [Int: (rows: Int, updateSeq: Int64)] = [:]
        for row in try Row.fetchAll(
            db, sql: "SELECT \(States.view), \(States.rows), \(States.updateSeq) FROM \(States.table) WHERE \(States.tableName) = ?",
            arguments: [table])
        {
            states[row[0]] = (row[1], row[2])
        }
        return states
    }

    /// The bytes of the index's tables in the file (`file`), in their pages' used parts (`active`), and of
    /// its keys and values as JSON (`external`).
    static func sizes(of table: String, in db: Database) throws -> (file: Int, active: Int, external: Int) {
        // The rows, their index by document, and the reduction blocks with their own index and catalogue.
        let blocks = ViewReductionBlocks.blocksTable(of: table)
        let names = [table, table + "_by_doc", blocks, blocks + "_dirty", ViewReductionBlocks.catalogueTable(of: table)]
        var file = 0
        var active = 0
        do {
            let row = try Row.fetchOne(
                db, sql: "SELECT COALESCE(SUM(pgsize), 0), COALESCE(SUM(pgsize - unused), 0) FROM dbstat WHERE name IN (?, ?, ?, ?, ?)",
                arguments: StatementArguments(names))
            file = row?[0] ?? 0
            active = row?[1] ?? 0
        } catch {
            // SQLite without the dbstat table: the rows' bytes stand for both.
        }
        let external = try Int.fetchOne(
            db, sql: "SELECT COALESCE(SUM(length(\(Rows.keyJSON)) + length(\(Rows.valueJSON))), 0) FROM \(table)") ?? 0
        if file == 0 { (file, active) = (external, external) }
        return (file, active, external)
    }

    // MARK: A first build's table

    /// The table a first build fills beside the index's own, which it replaces when it is complete, so readers
    /// never see part of a build, and the build can commit its rows a part at a time.
    static func building(_ table: String) -> String { table + "_building" }

    /// Starts a first build's table, empty and without its index by document. A table an interrupted build
    /// left is dropped. The index's own table is empty (it has never been built), so its index by document is
    /// dropped too: the built table's index takes that name.
    static func startBuilding(_ table: String, in db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS \(building(table)); DROP INDEX IF EXISTS \(table)_by_doc")
        try createRows(building(table), in: db)
    }

    /// Indexes the built table's rows by document: over rows that are all in, SQLite builds the index with one
    /// sort, far cheaper than keeping it through every insert.
    static func indexBuilding(_ table: String, in db: Database) throws {
        try db.execute(sql: "CREATE INDEX \(table)_by_doc ON \(building(table))(\(Rows.documentID))")
    }

    /// Puts the built table in the place of the index's own, in the caller's transaction.
    static func finishBuilding(_ table: String, in db: Database) throws {
        try db.execute(sql: "DROP TABLE \(table); ALTER TABLE \(building(table)) RENAME TO \(table)")
    }

    /// Rewrites the rows table in key order into fresh pages (view compaction).
    static func rewrite(_ table: String, in db: Database) throws {
        let fresh = table + "_compact"
        try db.execute(sql: "DROP TABLE IF EXISTS \(fresh)")
        try createRows(fresh, in: db)
        try db.execute(sql: "INSERT INTO \(fresh) SELECT * FROM \(table) ORDER BY \(Rows.view), \(Rows.key), \(Rows.documentID), \(Rows.duplicate)")
        try db.execute(sql: "DROP TABLE \(table)")
        try db.execute(sql: "ALTER TABLE \(fresh) RENAME TO \(table)")
        try db.execute(sql: "CREATE INDEX \(table)_by_doc ON \(table)(\(Rows.documentID))")
    }

    /// Replaces each document's rows with the rows it emits now, in the caller's write transaction; a view's
    /// last changing sequence becomes that of the last document here that changed its rows.
    /// `reductions` are the spec's, for the reduction blocks a runtime's functions keep.
    static func apply(_ documents: [MappedDocument], to table: String, reductions: [[ViewBlockReduction]] = [], in db: Database) throws {
        // Statements bound directly (``DirectBinding``): an update runs them once per changed document or row.
        let insert = try db.cachedStatement(
            sql: "INSERT OR REPLACE INTO \(table) (\(Rows.view), \(Rows.key), \(Rows.documentID), \(Rows.duplicate), "
                + "\(Rows.keyJSON), \(Rows.valueJSON)) VALUES (?, ?, ?, ?, ?, ?)")
        let countBefore = try db.cachedStatement(
            sql: "SELECT \(Rows.view), COUNT(*) FROM \(table) WHERE \(Rows.documentID) = ? GROUP BY \(Rows.view)")
        let delete = try db.cachedStatement(sql: "DELETE FROM \(table) WHERE \(Rows.documentID) = ?")
        var added: [Int: Int] = [:]
        var changed: [Int: Int64] = [:]
        let blocks = try ViewReductionBlocks.Changes(table: table, reductions: reductions, in: db)
        for document in documents {
            var before: [(view: Int, count: Int)] = []
            countBefore.bind([.text(document.id)])
            try countBefore.forEachRow(in: db) { row in
                before.append((Int(row.integer(0) ?? 0), Int(row.integer(1) ?? 0)))
                return true
            }
            if !before.isEmpty {
                if let blocks { try touchRows(of: document.id, in: table, blocks: blocks, db: db) }
                try delete.executeBound(in: db) { $0.text(document.id) }
                for (view, count) in before {
                    added[view, default: 0] -= count
                    changed[view] = max(changed[view] ?? 0, document.seq)
                }
            }
            for (view, rows) in document.rows.enumerated() where !rows.isEmpty {
                for row in rows {
                    try insert.executeBound(in: db) { $0.viewRow(row, view: view, documentID: document.id) }
                    try blocks?.touch(
                        view: view, at: .init(key: row.key, documentID: document.id, duplicate: Int64(row.duplicate)),
                        keyJSON: row.keyJSON, value: row.valueJSON, added: true, in: db)
                }
                added[view, default: 0] += rows.count
                changed[view] = max(changed[view] ?? 0, document.seq)
            }
        }
        for (view, seq) in changed.sorted(by: { $0.key < $1.key }) {
            try adjust(table, view: view, rows: added[view] ?? 0, seq: seq, in: db)
        }
        try blocks?.settle(in: db)
    }
}

/// A document's rows in one index, per view, ready to store.
struct MappedDocument: Sendable {
    var id: String
    /// The document's sequence.
    var seq: Int64
    var rows: [[EncodedViewRow]]
}

/// One row as stored: its collation key, its place among the document's rows with the same key, and the
/// key and value as JSON text.
struct EncodedViewRow: Sendable {
    var key: [UInt8]
    var duplicate: Int
    var keyJSON: [UInt8]
    var valueJSON: [UInt8]
}

extension DirectBinding {
    /// Binds a row's columns in the rows table's order: view, collation key, document id, duplicate number,
    /// key JSON, value JSON.
    mutating func viewRow(_ row: EncodedViewRow, view: Int, documentID: String) {
        integer(Int64(view))
        blob(row.key)
        text(documentID)
        integer(Int64(row.duplicate))
        text(utf8: row.keyJSON)
        text(utf8: row.valueJSON)
    }
}
