internal import CloudantCore
internal import Foundation
internal import GRDB

/// Runs a `QueryPlan` in one read transaction: SQL yields candidate rows from the chosen index (the key
/// range CouchDB would scan), each candidate is checked against the whole selector in memory,
/// and the page is cut.
///
/// When the scan order is the query's order, rows stream and reading stops once the page is full, with the
/// bookmark as a SQL bound; otherwise every match is collected and sorted by collation.
///
/// `execution_stats` count what CouchDB counts: every index row of the range read (`total_keys_examined`,
/// design documents included for `_all_docs`), every document read with it (`total_docs_examined`, none
/// for a covering index; `total_quorum_docs_examined` when `r` > 1), up to the first match after the
/// page. To count rows SQL could have skipped, a query asking for them reads the whole range and carries
/// the exact conditions as a column instead of a filter (see `QueryExecutor+SQL.swift`).
struct QueryExecutor {
    typealias Documents = StoreSchema.Documents

    let db: Database
    let request: FindRequest
    let plan: QueryPlan
    let after: FindBookmark?
    let indexes: [StoredIndex]
    /// Bounds each `$regex` evaluation; its cancellation signal is checked for every candidate row.
    let limits: MatchLimits
    /// Write the page as answer bytes from the stored bodies when the index scan decides every match
    /// (`Outcome.encodedPage`; see `QueryExecutor+StoredBodies.swift`).
    var encodesDocuments = false
    /// Which documents the reader may see: each candidate is parsed and judged first, and one refused is
    /// dropped before it is counted or matched (see ``DocumentVisibility``).
    var visibility: DocumentVisibility?

    /// The most index rows the scan reads (``MatchLimits/indexRowLimit``); text searches are not held to it.
    var rowLimit: Int? {
        if case .text = plan.access { return nil }
        return limits.indexRowLimit
    }

    struct Outcome: Sendable {
        var page: [JSONObject] = []
        /// The page as each document's answer bytes instead, when it was written from the stored bodies.
        var encodedPage: [[UInt8]]?
        var keysExamined = 0
        var docsExamined = 0
        var quorumDocsExamined = 0
        /// Where the page ended, for the next bookmark.
        var last: FindBookmark?

        /// Documents in the page, however it is held.
        var pageCount: Int { encodedPage?.count ?? page.count }
    }

    /// A candidate row with the keys that order it.
    private struct Match {
        var document: JSONObject
        var keys: [JSONValue]
        var id: String
    }

    func run() throws -> Outcome {
        var outcome = Outcome()
        if plan.isEmpty { return outcome }
        let scan = try statement()
        let statement = try db.cachedStatement(sql: scan.sql)
        statement.bind(scan.arguments)
        if encodesDocuments, try indexDecidesEveryMatch(scan), let outcome = try runWritingStoredBodies(statement) {
            return outcome
        }
        // A text scan comes in relevance order or, unranked (with a visibility), in no order: sorted here by `_id`.
        let isTextScan = if case .text = plan.access { true } else { false }
        let ordered = plan.scanIsOrdered && !scan.ranked && !isTextScan
        var matches: [Match] = []
        var skipped = 0
        // CouchDB's cursor records each match's keys for the bookmark while its limit is above 0, the ones
        // `skip` passes over included (`update_bookmark_keys/2`): a page of nothing but skipped matches still
        // has a bookmark, the last of them.
        var lastSkipped: Match?
        let rowLimit = rowLimit
        // When the index keys decide the selector, only ids are compared (see `scanDecidesSelector`); else the
        // conditions the scan leaves are checked on each body before it is parsed, but never before the
        // reader's visibility has judged it.
        let decidedIDs = try scanDecidesSelector(scan) ? idArguments() : nil
        let prefilter =
            decidedIDs == nil && visibility == nil && scan.covering == nil && !isTextScan
            ? BodyPrefilter(selector: request.selector, checked: try boundsTheIndexChecks()) : nil
        let bodyChecks = prefilter?.isEmpty == false ? prefilter : nil
        // Each row: true reads on, false stops (the page is full).
        try statement.forEachRow(in: db) { row in
            try limits.cancellation?.check()
            let id = row.text(Self.Column.id) ?? ""
            // The reader's visibility comes before everything else the row is put through, counting included.
            var judged: JSONObject?
            if let visibility {
                guard !DocumentID.isDesign(id), let document = try Self.document(from: row, conflicts: addsConflicts),
                    visibility.allows(document)
                else { return true }
                judged = document
            }
            // CouchDB's scan ends after `query_limit` rows, with the matches found so far.
            if let rowLimit, outcome.keysExamined >= rowLimit { return false }
            outcome.keysExamined += 1
            if scan.skipsDesignDocuments, DocumentID.isDesign(id) {
                countDocument(&outcome, covering: false)
                return true
            }
            if let pass = scan.passColumn, row.integer(pass) == 0 {
                countDocument(&outcome, covering: scan.covering != nil)
                return true
            }
            if let bodyChecks,
                try !row.withBody(Column.body, { bytes in try bytes.map { try bodyChecks.mayMatch($0, limits: limits) } ?? true })
            {
                countDocument(&outcome, covering: false)
                return true
            }
            let made = try judged.map { Optional($0) } ?? scan.covering.map { try Self.derivedDocument(row, $0) }
            guard let document = try made ?? Self.document(from: row, conflicts: addsConflicts) else { return true }
            countDocument(&outcome, covering: scan.covering != nil)
            if let decidedIDs {
                guard Self.id(id, isEvery: decidedIDs) else { return true }
            } else {
                guard try request.selector.matches(document, limits: limits) else { return true }
            }
            let keys: [JSONValue]
            if scan.ranked {
                keys = [.number(.double(row.real(Self.Column.rank) ?? 0))]
            } else if ordered {
                // In the scan's order the keys are the index's fields, which every row's document has (an index
                // holds only documents with all its fields; `_all_docs` orders by `_id`): only the page's last
                // match needs them, for the bookmark (below).
                keys = []
            } else {
                guard let orderKeys = Self.keys(of: document, order: plan.order) else { return true }
                keys = orderKeys
            }
            let match = Match(document: document, keys: keys, id: id)
            guard ordered else {
                matches.append(match)
                return true
            }
            if skipped < request.skip {
                skipped += 1
                lastSkipped = match
                return true
            }
            // CouchDB stops at the first match after a full page, having read it; without statistics to
            // report, stopping at the page's end returns the same page.
            if matches.count >= request.limit { return false }
            matches.append(match)
            return !(matches.count >= request.limit && !request.executionStats)
        }
        if !ordered {
            let order = scan.ranked ? [SortField(FieldPath(["$rank"]))] : plan.order
            matches.sort { Self.precedes($0, $1, order: order) }
            if let after {
                matches = matches.filter { FindBookmark(keys: $0.keys, id: $0.id).isAfter(after, sort: order) }
            }
            lastSkipped = matches.prefix(request.skip).last
            matches = Array(matches.dropFirst(request.skip).prefix(request.limit))
        }
        outcome.page = matches.map(\.document)
        outcome.last = (matches.last ?? (request.limit > 0 ? lastSkipped : nil)).map { last in
            FindBookmark(keys: ordered ? Self.keys(of: last.document, order: plan.order) ?? [] : last.keys, id: last.id)
        }
        if let range = scan.examinedRange {
            try countHiddenRows(of: range, into: &outcome, stoppedAtLast: ordered && matches.count >= request.limit)
        }
        return outcome
    }

    /// CouchDB warns when a query read more than this many documents per result (`index_scan_warning`).
    static let scanWarningRatio = 10

    /// Counts the rows of the range that conditions SQL checked kept from the loop, as CouchDB reads every one
    /// of them, so `index_scan_warning` sees what CouchDB's sees. Counted only as far as the warning needs
    /// (one row past its threshold), and only up to the page's last document when the scan stopped there
    /// (CouchDB also reads on to the next match, which only moves a count sitting at the threshold).
    private func countHiddenRows(of range: ExaminedRange, into outcome: inout Outcome, stoppedAtLast: Bool) throws {
        let threshold = Self.scanWarningRatio * max(outcome.pageCount, 1)
        guard outcome.docsExamined + outcome.quorumDocsExamined <= threshold else { return }
        var conditions = range.conditions
        var arguments = range.arguments
        if stoppedAtLast {
            // `limit=0`: the scan stopped at its first match, with no page to count up to.
            guard let last = outcome.last else { return }
            conditions.append(range.throughLast)
            if range.keyed { arguments += last.keys.map { .blob(CollationKey.of($0)) } }
            arguments.append(.text(last.id))
        }
        arguments.append(.integer(Int64(threshold + 1)))
        let rows = "SELECT 1 FROM " + range.from + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
        let statement = try db.cachedStatement(sql: "SELECT COUNT(*) FROM (" + rows + " LIMIT ?)")
        let counted = try statement.fetchFirstRow(in: db, { $0.values(arguments) }) { Int($0.integer(0) ?? 0) } ?? 0
        if request.readQuorum > 1 {
            outcome.quorumDocsExamined = max(outcome.quorumDocsExamined, counted)
        } else {
            outcome.docsExamined = max(outcome.docsExamined, counted)
        }
    }

    /// A document read with an index row: from the documents table (`r` 1), at the coordinator (`r` > 1),
    /// or not at all (a covering index).
    private func countDocument(_ outcome: inout Outcome, covering: Bool) {
        if covering { return }
        if request.readQuorum > 1 { outcome.quorumDocsExamined += 1 } else { outcome.docsExamined += 1 }
    }

    // MARK: Rows

    /// The columns every candidate row has, by position.
    enum Column {
        static let rowID = 0
        static let id = 1
        static let body = 2
        static let attachments = 3
        /// The revision tree, which gives `_rev` (its winner) and `_conflicts`.
        static let tree = 4
        /// The text search rank, after the fixed columns.
        static let rank = 5
    }

    /// The columns a candidate row needs.
    static let columns = [Documents.rowID, Documents.id, Documents.body, Documents.attachments, Documents.tree]
    static let selectColumns = columns.map { "d." + $0 }.joined(separator: ", ")

    /// Whether documents carry `_conflicts` (for the selector and the answer): when asked, and read at the
    /// shard (`r` = 1). With `r` above 1 CouchDB reads each document through `fabric:open_doc/3` with the
    /// option `{conflicts, true}`, which `couch_db:doc_meta_info/3` does not recognise (it looks for the atom
    /// `conflicts`), so its documents never have them.
    var addsConflicts: Bool { request.conflicts && request.readQuorum == 1 }

    /// The winning revision as `_find` returns it: `_id`, `_rev`, the body, attachment stubs, and
    /// `_conflicts` when asked; nil when the winner's body was never received.
    static func document(from row: DirectRow, conflicts: Bool) throws -> JSONObject? {
        let id = row.text(Column.id) ?? ""
        let rev = try row.winner(Column.tree).description
        // `_id` and `_rev` go in front as the body is parsed: its object is built once, at its size.
        let leading: [(key: String, value: JSONValue)] = [("_id", .string(id)), ("_rev", .string(rev))]
        guard
            case .object(var document)? = try row.withBody(
                Column.body, { bytes in try bytes.map { try JSONValue(parsing: $0, leadingMembers: leading) } })
        else { return nil }
        if let attachments = try row.withBytes(Column.attachments, { bytes in try bytes.map { try JSONValue(parsing: $0) } }) {
            let table = try AttachmentTable(storageJSON: attachments)
            document["_attachments"] = .object(
                JSONObject(table.orderedNames.compactMap { name in table.entries[name].map { (name, $0.stub) } }))
        }
        if conflicts {
            let tree = try RevisionTree(decoding: row.bytes(Column.tree) ?? [])
            if !tree.conflicts.isEmpty { document["_conflicts"] = .array(tree.conflicts.map { .string($0.description) }) }
        }
        return document
    }

    /// The document a covering index row stands for (`derive_doc_from_index`): its `_id` and the value of
    /// each indexed field, read from the stored body by SQLite, which leaves the body unparsed. Nil when
    /// the body was never received.
    static func derivedDocument(_ row: DirectRow, _ covering: CoveringColumns) throws -> JSONObject? {
        var document = JSONValue.object(["_id": .string(row.text(Column.id) ?? "")])
        for (path, column) in covering.columns {
            let value: JSONValue
            switch path.segments {
            case ["_id"]: continue
            case ["_rev"]: value = .string(try row.winner(Column.tree).description)
            default:
                guard let column, let parsed = try row.withBytes(column, { bytes in try bytes.map { try JSONValue(parsing: $0) } })
                else { return nil }
                value = parsed
            }
            document = DocumentStore.setting(value, at: path.segments[...], in: document)
        }
        return document.objectValue
    }

    // MARK: Ordering

    /// The values of the order fields, or nil when one is missing (such documents sort nowhere and are
    /// left out, as an index would leave them out).
    static func keys(of document: JSONObject, order: [SortField]) -> [JSONValue]? {
        var keys: [JSONValue] = []
        for field in order {
            guard case .found(let value) = field.path.lookup(in: .object(document)) else { return nil }
            keys.append(value)
        }
        return keys
    }

    /// Each field in its own direction (the builder allows mixed sorts); ties by `_id` bytes in the first
    /// field's direction.
    private static func precedes(_ lhs: Match, _ rhs: Match, order: [SortField]) -> Bool {
        precedes(keys: lhs.keys, id: lhs.id, keys: rhs.keys, id: rhs.id, order: order)
    }

    /// Whether a document with `lhsKeys` (the values of `order`'s fields) and `lhsID` comes before the other
    /// in results sorted by `order`.
    static func precedes(
        keys lhsKeys: [JSONValue], id lhsID: String, keys rhsKeys: [JSONValue], id rhsID: String, order: [SortField]
    ) -> Bool {
        for (index, field) in order.enumerated() {
            let comparison = Collation.compare(lhsKeys[index], rhsKeys[index])
            if comparison != 0 { return field.descending ? comparison > 0 : comparison < 0 }
        }
        let byID = Collation.compareBytes(lhsID, rhsID)
        return order.first?.descending == true ? byID > 0 : byID < 0
    }
}
