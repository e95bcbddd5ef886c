internal import CloudantCore
internal import Foundation
internal import GRDB

/// The SQL of the tables that hold index entries. Table names come from `mango_indexes` (a prefix and a
/// counter), never from user text; every value is bound.
///
/// - A JSON index is a `WITHOUT ROWID` table whose primary key is `(k0, k1, …, id)` — the `k` columns are
///   `CollationKey`s, so byte order there is CouchDB's index order, key then `_id` —
///   plus the document's rowid for the join. Keys are stored once (no separate SQLite index), and an entry
///   is removed by recomputing its key from the document's previous body. An index that reads metadata
///   (`_rev`, `_conflicts`, …) also has an index by document row, which finds its entries instead.
/// - A text index is an FTS5 table whose rowid is the document's rowid, with one column per field and a
///   last `all_text` column (Cloudant's `default` field) that `$text` searches.
enum IndexTable {
    static let documentRowID = "doc_rowid"
    static let id = "id"
    static let allText = "all_text"

    static func keyColumn(_ index: Int) -> String { "k\(index)" }
    static func textColumn(_ index: Int) -> String { "c\(index)" }

    /// FTS5 tokenizers for each analyzer (constants: never built from input).
    static func tokenizer(_ analyzer: TextAnalyzer) -> String {
        switch analyzer {
        case .standard: "unicode61 remove_diacritics 2"
        case .porter: "porter unicode61 remove_diacritics 2"
        case .simple: "unicode61 remove_diacritics 0 separators '0123456789'"
        }
    }

    static func create(_ index: StoredIndex, in db: Database) throws {
        let table = index.tableName
        switch index.definition.type {
        case .json:
            let keys = index.paths.indices.map(keyColumn)
            try db.execute(
                sql: "CREATE TABLE \(table) (" + keys.map { "\($0) BLOB NOT NULL" }.joined(separator: ", ")
                    + ", \(id) TEXT NOT NULL, \(documentRowID) INTEGER NOT NULL, "
                    + "PRIMARY KEY (" + (keys + [id]).joined(separator: ", ") + ")) WITHOUT ROWID")
            // An entry computed from the document's metadata cannot be found again from its previous body: it is
            // found by the document's row.
            if index.readsMetadata {
                try db.execute(sql: "CREATE INDEX \(table)_by_doc ON \(table)(\(documentRowID))")
            }
        case .text:
            let columns = index.paths.indices.map(textColumn) + [allText]
            try db.execute(
                sql: "CREATE VIRTUAL TABLE \(table) USING fts5(" + columns.joined(separator: ", ")
                    + ", tokenize = \"\(tokenizer(index.definition.analyzer))\")")
        }
    }

    static func drop(_ tableName: String, in db: Database) throws {
        try db.execute(sql: "DROP TABLE IF EXISTS \(tableName)")
    }

    /// Removes the entry a document's previous winner made (no-op when it made none).
    ///
    /// - Parameter previousBody: The body the entry was computed from.
    static func removeEntry(
        _ index: StoredIndex, rowID: Int64, id documentID: String, previousBody: JSONObject, in db: Database
    ) throws {
        switch index.definition.type {
        case .json:
            guard index.admits(id: documentID, body: previousBody),
                let keys = index.jsonKeys(id: documentID, body: previousBody)
            else { return }
            var arguments = StatementArguments()
            for key in keys { arguments += [Data(key)] }
            arguments += [documentID]
            try db.cachedStatement(sql: index.deleteSQL).execute(arguments: arguments)
        case .text:
            try db.cachedStatement(sql: index.deleteSQL).execute(arguments: [rowID])
        }
    }

    /// Removes the entries of the document in row `rowID` from a JSON index that reads metadata
    /// (``StoredIndex/readsMetadata``), through its index by document row.
    static func removeEntries(_ index: StoredIndex, rowID: Int64, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM \(index.tableName) WHERE \(documentRowID) = ?").execute(arguments: [rowID])
    }

    /// Adds the entry of a live document the index admits (the caller removed any old entry).
    ///
    /// - Parameter body: The document's body, without `_id`.
    static func addEntry(_ index: StoredIndex, rowID: Int64, id documentID: String, body: JSONObject, in db: Database) throws {
        guard index.admits(id: documentID, body: body) else { return }
        switch index.definition.type {
        case .json:
            guard let keys = index.jsonKeys(id: documentID, body: body) else { return }
            try addEntry(index, rowID: rowID, id: documentID, keys: keys, in: db)
        case .text:
            guard let columns = index.textColumns(of: body) else { return }
            try db.cachedStatement(sql: index.insertSQL)
                .execute(arguments: StatementArguments([rowID] + columns.map { $0 as any DatabaseValueConvertible }))
        }
    }

    /// Adds a JSON index entry whose key columns are known (``PreparedIndexEntries``).
    static func addEntry(_ index: StoredIndex, rowID: Int64, id documentID: String, keys: [[UInt8]], in db: Database) throws {
        // Bound directly: this runs once per document and index on every write (see `DirectBinding`).
        try db.cachedStatement(sql: index.insertSQL).executeBound(in: db) { bind in
            for key in keys { bind.blob(key) }
            bind.text(documentID)
            bind.integer(rowID)
        }
    }
}
