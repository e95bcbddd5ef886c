@testable import CloudantStore
import Foundation
import GRDB
import Testing

/// The SQL a `_find` over a JSON index builds lets SQLite bound its index search, so the work a page costs
/// follows the page, not the size of the range the selector names.
@Suite("JSON index scans: bounded searches")
struct IndexScanBoundsTests {
    /// The plan SQLite makes for a selector's range on the first key column (`>=` ascending, `<=`
    /// descending) and `conditions`, over a two-column JSON index table joined to its documents.
    private func plan(_ conditions: String, descending: Bool = false) throws -> String {
        let scan = StoredIndex.ScanSQL(tableName: "mango_json_1", columnCount: 2)
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.execute(
                sql: "CREATE TABLE documents (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, body TEXT);"
                    + "CREATE TABLE mango_json_1 (k0 BLOB NOT NULL, k1 BLOB NOT NULL, id TEXT NOT NULL, "
                    + "doc_rowid INTEGER NOT NULL, PRIMARY KEY (k0, k1, id)) WITHOUT ROWID")
            let range = descending ? scan.atMost[0] : scan.atLeast[0]
            let sql = "SELECT 1 FROM \(scan.from) WHERE \(range) AND " + conditions + " LIMIT 1001"
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: [Data([4]), Data([4]), Data([5]), "x"])
                .map { $0["detail"] as String }.joined(separator: "; ")
        }
    }

    /// The scan warning counts the rows a page's SQL conditions skipped, up to the page's last row: that
    /// row ends SQLite's search (a `NOT` of the bookmark's bound would read the range to its end first).
    @Test func countingUpToThePagesLastRowEndsTheSearchThere() throws {
        let scan = StoredIndex.ScanSQL(tableName: "mango_json_1", columnCount: 2)
        let ascending = try plan(scan.throughRowAscending)
        #expect(ascending.contains("(k0,k1,id)<"), "\(ascending)")
        let descending = try plan(scan.throughRowDescending, descending: true)
        #expect(descending.contains("(k0,k1,id)>"), "\(descending)")
        let unbounded = try plan("NOT (" + scan.afterBookmark + ")")
        #expect(!unbounded.contains("(k0,k1,id)"), "\(unbounded)")
    }
}
