internal import CloudantCore
internal import Foundation
internal import GRDB

/// Answers a view query from an index's rows, in one read snapshot: CouchDB's `map_fold` and `red_fold`.
enum ViewQueryExecutor {
    /// Map rows: `total_rows`, `offset` (rows before the first one read, `skip` included, at most the total),
    /// and the rows after `skip`, at most `limit`, with their documents when asked for.
    static func map(
        _ scan: ViewScan, state: (rows: Int, updateSeq: Int64), updateSeq: Bool, in db: Database
    ) throws -> ViewResult {
        let query = scan.query
        var rows: [ViewRow] = []
        var skip = query.skip
        let limit = query.limit ?? Int.max
        var firstPosition: Int?
        let ranges = scan.ranges
        reading: for range in ranges {
            var sawRow = false
            var stop = false
            try scan.rows(in: range, db: db) { stored in
                if !sawRow {
                    sawRow = true
                    if firstPosition == nil { firstPosition = try scan.rowsBefore(range, db: db) }
                }
                if skip > 0 {
                    skip -= 1
                    return true
                }
                guard rows.count < limit else {
                    stop = true
                    return false
                }
                var row = ViewRow(id: stored.documentID, key: try stored.parsedKey(), value: try stored.parsedValue())
                if query.includeDocs { row.document = try document(for: row, query: query, in: db) }
                rows.append(row)
                return true
            }
            if stop || rows.count >= limit { break reading }
        }
        // With no row read, CouchDB's offset is where the (last) range starts.
        let before = try firstPosition ?? (ranges.last.map { try scan.rowsBefore($0, db: db) } ?? 0)
        return ViewResult(
            totalRows: state.rows, offset: min(state.rows, before + query.skip), updateSeq: updateSeq ? state.updateSeq : nil,
            rows: rows)
    }

    /// The document a row brings with `include_docs`, as `couch_mrview_util`'s `docid_rev` picks it: when the
    /// value is an object, its `_id` (the row's id when it has none; a `null` `_id` gives none) at its `_rev`
    /// (the winner when it has none); otherwise the emitting document. `null` when it is gone or deleted.
    static func document(for row: ViewRow, query: ViewQuery, in db: Database) throws -> JSONValue {
        var id = row.id
        var rev: RevisionID?
        if case .object(let value) = row.value {
            if let linked = value["_id"] {
                guard case .string(let linkedID) = linked else { return .null }
                id = linkedID
            }
            rev = value["_rev"]?.stringValue.flatMap { try? RevisionID(parsing: $0) }
        }
        guard let id, let record = try DocumentRecord.fetch(id: id, in: db) else { return .null }
        let wanted = rev ?? record.winnerRev
        if rev == nil, record.deleted { return .null }
        let options = ReadOptions(
            conflicts: query.conflicts ?? false, attachments: query.attachments, attachmentEncodingInfo: query.attachmentEncodingInfo)
        let document = try DocumentAssembler(db: db, record: record).document(rev: wanted, options: options)
        return document.map(JSONValue.object) ?? .null
    }
}
