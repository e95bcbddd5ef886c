public import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    private typealias Documents = StoreSchema.Documents

    /// Runs a Cloudant Query (`_find`): the winning revisions of live, non-design documents that match the
    /// selector, sorted, paged and projected (spec §3).
    ///
    /// Sorting works with or without an index (unlike CouchDB's `no_usable_index`): documents lacking a
    /// sort field are left out, as an index would leave them out, and ties are broken by `_id`.
    ///
    /// ```swift
    /// let request = try FindRequest(JSONValue(parsing: #"{"selector":{"age":{"$gte":18}},"sort":["age"]}"#))
    /// let page = try await store.find(request)
    /// let next = try await store.find({ var r = request; r.bookmark = page.bookmark; return r }())
    /// ```
    /// - Throws: ``CloudantError`` with a ``QueryErrorKind`` for a bad bookmark.
    public func find(_ request: FindRequest) async throws -> FindResult {
        let started = ContinuousClock.now
        let after = try request.bookmark.map(FindBookmark.init(decoding:))
        let scan = QueryScan(request.selector)
        if request.selector.isTopLevelEmptyAndOr {  // M-8: `{"$or": []}` alone returns nothing
            return FindResult(docs: [], bookmark: request.bookmark ?? FindBookmark.empty, warning: nil, executionStats: nil)
        }
        let (candidates, examined) = try await read(.fetchFailed) { db in
            try Self.matchingDocuments(request, scan: scan, in: db)
        }
        var matches = candidates
        if !request.sort.isEmpty {
            matches = matches.compactMap { doc in
                let keys = request.sort.map { field -> JSONValue? in
                    if case .found(let value) = field.path.lookup(in: .object(doc)) { return value }
                    return nil
                }
                return keys.contains(where: { $0 == nil }) ? nil : (doc, keys.compactMap { $0 })
            }.sorted { lhs, rhs in Self.precedes(lhs, rhs, sort: request.sort) }.map(\.0)
        }
        if let after {
            matches = matches.filter { doc in
                FindBookmark.position(of: doc, sort: request.sort).isAfter(after, sort: request.sort)
            }
        }
        let page = Array(matches.dropFirst(request.skip).prefix(request.limit))
        let bookmark = page.last.map { FindBookmark.position(of: $0, sort: request.sort).encoded }
            ?? request.bookmark ?? FindBookmark.empty
        var warnings: [String] = []
        if !scan.isNarrowing { warnings.append("No matching index found, create an index to optimize query time.") }
        if examined > 10 * max(page.count, 1) {
            warnings.append(
                "The number of documents examined is high in proportion to the number of results returned. "
                    + "Consider adding a more specific index to improve this.")
        }
        let docs = page.map { doc in request.fields.map { Self.project(doc, fields: $0) } ?? doc }
        let elapsed = ContinuousClock.now - started
        let stats = request.executionStats
            ? FindResult.ExecutionStats(
                totalKeysExamined: 0, totalDocsExamined: examined, resultsReturned: docs.count,
                executionTimeMs: Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            : nil
        return FindResult(
            docs: docs, bookmark: bookmark, warning: warnings.isEmpty ? nil : warnings.joined(separator: "\n"),
            executionStats: stats)
    }

    /// Reads the candidate rows SQL can narrow to, and keeps those the whole selector matches.
    private static func matchingDocuments(
        _ request: FindRequest, scan: QueryScan, in db: Database
    ) throws -> ([JSONObject], Int) {
        var conditions = ["\(Documents.deleted) = 0", "\(Documents.id) NOT LIKE '\\_design/%' ESCAPE '\\'"]
        var arguments = StatementArguments()
        if let (value, inclusive) = scan.idLowerBound {
            conditions.append("\(Documents.id) \(inclusive ? ">=" : ">") ?")
            arguments += [value]
        }
        if let (value, inclusive) = scan.idUpperBound {
            conditions.append("\(Documents.id) \(inclusive ? "<=" : "<") ?")
            arguments += [value]
        }
        if let prefix = scan.idPrefix {
            // A byte-order range: every id with the prefix sorts between the prefix and prefix + U+10FFFF.
            conditions.append("\(Documents.id) >= ? AND \(Documents.id) < ?")
            arguments += [prefix, prefix + "\u{10FFFF}"]
        }
        if let kind = scan.kind {
            conditions.append("\(Documents.kind) = ?")
            arguments += [kind]
        }
        let sql =
            "SELECT \(DocumentRecord.selectColumns) FROM \(Documents.table) WHERE "
            + conditions.joined(separator: " AND ") + " ORDER BY \(Documents.id)"
        var matches: [JSONObject] = []
        var examined = 0
        let cursor = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try cursor.next() {
            let record = try DocumentRecord(row: row)
            guard
                let document = try DocumentAssembler(db: db, record: record).document(
                    rev: record.winnerRev, options: ReadOptions(conflicts: request.conflicts))
            else { continue }
            examined += 1
            if request.selector.matches(document) { matches.append(document) }
        }
        return (matches, examined)
    }

    private static func precedes(
        _ lhs: (JSONObject, [JSONValue]), _ rhs: (JSONObject, [JSONValue]), sort: [SortField]
    ) -> Bool {
        for (index, field) in sort.enumerated() {
            let order = Collation.compare(lhs.1[index], rhs.1[index])
            if order != 0 { return field.descending ? order > 0 : order < 0 }
        }
        let lhsID = lhs.0["_id"]?.stringValue ?? "", rhsID = rhs.0["_id"]?.stringValue ?? ""
        let byID = Collation.compareBytes(lhsID, rhsID)
        return sort.first?.descending == true ? byID > 0 : byID < 0
    }

    /// Keeps only `fields`, nested as in the document (spec M-17).
    static func project(_ document: JSONObject, fields: [FieldPath]) -> JSONObject {
        var result = JSONValue.object(JSONObject())
        for path in fields {
            guard case .found(let value) = path.lookup(in: .object(document)) else { continue }
            result = Self.setting(value, at: path.segments[...], in: result)
        }
        return result.objectValue ?? JSONObject()
    }

    private static func setting(_ value: JSONValue, at path: ArraySlice<String>, in container: JSONValue) -> JSONValue {
        guard let key = path.first else { return value }
        var object = container.objectValue ?? JSONObject()
        object[key] = setting(value, at: path.dropFirst(), in: object[key] ?? .object(JSONObject()))
        return .object(object)
    }
}
