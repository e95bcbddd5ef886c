internal import CloudantCore
internal import Foundation
internal import GRDB

/// The SQL of the tables that hold index entries. Table names come from `mango_indexes` (a prefix and a
/// counter), never from user text; every value is bound.
///
/// - A JSON index is a table `(doc_rowid PRIMARY KEY, id, k0, k1, …)` whose `k` columns are
///   ``CollationKey``s, plus a SQLite index on `(k0, k1, …, id)`: byte order there is CouchDB's index order,
///   key then `_id` (spec M-16, M-21).
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
                sql: "CREATE TABLE \(table) (\(documentRowID) INTEGER PRIMARY KEY, \(id) TEXT NOT NULL, "
                    + keys.map { "\($0) BLOB NOT NULL" }.joined(separator: ", ") + ")")
            try db.execute(
                sql: "CREATE INDEX \(table)_keys ON \(table) (" + (keys + [id]).joined(separator: ", ") + ")")
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

    /// Removes the entry of a document (no-op when it has none).
    static func removeEntry(_ index: StoredIndex, rowID: Int64, in db: Database) throws {
        try db.cachedStatement(sql: index.deleteSQL).execute(arguments: [rowID])
    }

    /// Adds the entry of a live document the index admits (the caller removed any old entry).
    ///
    /// - Parameter body: The document's body, without `_id`.
    static func addEntry(_ index: StoredIndex, rowID: Int64, id documentID: String, body: JSONObject, in db: Database) throws {
        guard index.admits(id: documentID, body: body) else { return }
        switch index.definition.type {
        case .json:
            guard let keys = index.jsonKeys(id: documentID, body: body) else { return }
            var arguments: StatementArguments = [rowID, documentID]
            for key in keys { arguments += [Data(key)] }
            try db.cachedStatement(sql: index.insertSQL).execute(arguments: arguments)
        case .text:
            guard let columns = index.textColumns(of: body) else { return }
            try db.cachedStatement(sql: index.insertSQL)
                .execute(arguments: StatementArguments([rowID] + columns.map { $0 as any DatabaseValueConvertible }))
        }
    }
}
