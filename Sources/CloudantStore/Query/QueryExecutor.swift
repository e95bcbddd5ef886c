internal import CloudantCore
internal import Foundation
internal import GRDB

/// Runs a ``QueryPlan`` in one read transaction: SQL yields candidate rows from the chosen index (key
/// ranges on its columns, or `_id` ranges on `documents`), each candidate is checked against the whole
/// selector in memory (spec M-23), and the page is cut.
///
/// When the scan order is the query's order, rows stream and reading stops once the page is full, with the
/// bookmark as a SQL bound; otherwise every match is collected and sorted by collation.
struct QueryExecutor {
    private typealias Documents = StoreSchema.Documents

    let db: Database
    let request: FindRequest
    let plan: QueryPlan
    let after: FindBookmark?
    let indexes: [StoredIndex]
    /// Bounds each `$regex` evaluation; its cancellation signal is checked for every candidate row.
    let limits: MatchLimits

    struct Outcome: Sendable {
        var page: [JSONObject] = []
        var keysExamined = 0
        var docsExamined = 0
        /// Where the page ended, for the next bookmark.
        var last: FindBookmark?
    }

    /// A candidate row with the keys that order it.
    private struct Match {
        var document: JSONObject
        var keys: [JSONValue]
        var id: String
    }

    func run() throws -> Outcome {
        var outcome = Outcome()
        let (sql, arguments, hasRank) = try statement()
        let cursor = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: arguments)
        var matches: [Match] = []
        var skipped = 0
        while let row = try cursor.next() {
            try limits.cancellation?.check()
            outcome.keysExamined += 1
            guard let document = try Self.document(from: row, conflicts: request.conflicts) else { continue }
            outcome.docsExamined += 1
            guard try request.selector.matches(document, limits: limits) else { continue }
            let id: String = row[1]
            let keys: [JSONValue]
            if hasRank {
                let rank: Double = row[Self.columns.count]
                keys = [.number(.double(rank))]
            } else {
                guard let ordered = Self.keys(of: document, order: plan.order) else { continue }
                keys = ordered
            }
            let match = Match(document: document, keys: keys, id: id)
            if plan.scanIsOrdered && !hasRank {
                if skipped < request.skip {
                    skipped += 1
                    continue
                }
                matches.append(match)
                if matches.count >= request.limit { break }
            } else {
                matches.append(match)
            }
        }
        if !plan.scanIsOrdered || hasRank {
            let order = hasRank ? [SortField(FieldPath(["$rank"]))] : plan.order
            matches.sort { Self.precedes($0, $1, order: order) }
            if let after {
                matches = matches.filter { FindBookmark(keys: $0.keys, id: $0.id).isAfter(after, sort: order) }
            }
            matches = Array(matches.dropFirst(request.skip).prefix(request.limit))
        }
        outcome.page = matches.map(\.document)
        outcome.last = matches.last.map { FindBookmark(keys: $0.keys, id: $0.id) }
        return outcome
    }

    // MARK: SQL

    /// The SELECT for the plan's access path; the bookmark becomes a bound when the scan is ordered.
    private func statement() throws -> (String, StatementArguments, hasRank: Bool) {
        // Conditions SQLite can check on the body before a row is parsed; appended last, after the index
        // ranges, so the arguments line up.
        let (pushed, pushedArguments) = BodyPushdown.conditions(for: request.selector, body: "d.\(Documents.body)")
        var conditions: [String] = []
        var arguments = StatementArguments()
        let descending = plan.order.first?.descending ?? false
        let direction = descending ? "DESC" : "ASC"
        switch plan.access {
        case .allDocuments:
            let scan = QueryScan(request.selector)
            conditions += ["d.\(Documents.deleted) = 0", "d.\(Documents.id) NOT LIKE '\\_design/%' ESCAPE '\\'"]
            if let (value, inclusive) = scan.idLowerBound {
                conditions.append("d.\(Documents.id) \(inclusive ? ">=" : ">") ?")
                arguments += [value]
            }
            if let (value, inclusive) = scan.idUpperBound {
                conditions.append("d.\(Documents.id) \(inclusive ? "<=" : "<") ?")
                arguments += [value]
            }
            if let prefix = scan.idPrefix {
                // A byte-order range: every id with the prefix sorts between the prefix and prefix + U+10FFFF.
                conditions.append("d.\(Documents.id) >= ? AND d.\(Documents.id) < ?")
                arguments += [prefix, prefix + "\u{10FFFF}"]
            }
            if let kind = scan.kind {
                conditions.append("d.\(Documents.kind) = ?")
                arguments += [kind]
            }
            if plan.scanIsOrdered, let after {
                conditions.append("d.\(Documents.id) \(descending ? "<" : ">") ?")
                arguments += [after.id]
            }
            conditions += pushed
            arguments += pushedArguments
            let sql =
                "SELECT \(Self.selectColumns) FROM \(Documents.table) AS d WHERE "
                + conditions.joined(separator: " AND ") + " ORDER BY d.\(Documents.id) \(direction)"
            return (sql, arguments, false)

        case .json(let definition, let ranges):
            let index = try stored(definition)
            for (column, range) in ranges.enumerated() {
                let name = "i.\(IndexTable.keyColumn(column))"
                if range.isSingleKey, let key = range.lower?.key {
                    // `=` rather than `>= AND <=`: SQLite seeks on the columns after an equality only.
                    conditions.append("\(name) = ?")
                    arguments += [Data(key)]
                    continue
                }
                if let lower = range.lower {
                    conditions.append("\(name) \(lower.inclusive ? ">=" : ">") ?")
                    arguments += [Data(lower.key)]
                }
                if let upper = range.upper {
                    conditions.append("\(name) \(upper.inclusive ? "<=" : "<") ?")
                    arguments += [Data(upper.key)]
                }
            }
            let columns = ranges.indices.map { "i.\(IndexTable.keyColumn($0))" } + ["i.\(IndexTable.id)"]
            if plan.scanIsOrdered, let after {
                let bounded = Array(columns[plan.orderColumnOffset...])
                conditions.append("(" + bounded.joined(separator: ", ") + ") \(descending ? "<" : ">") ("
                    + Array(repeating: "?", count: bounded.count).joined(separator: ", ") + ")")
                for key in after.keys { arguments += [Data(CollationKey.of(key))] }
                arguments += [after.id]
            }
            conditions += pushed
            arguments += pushedArguments
            let sql =
                "SELECT \(Self.selectColumns) FROM \(index.tableName) AS i "
                + "JOIN \(Documents.table) AS d ON d.\(Documents.rowID) = i.\(IndexTable.documentRowID)"
                + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
                + " ORDER BY " + columns.map { "\($0) \(direction)" }.joined(separator: ", ")
            return (sql, arguments, false)

        case .text(let definition, let match):
            let index = try stored(definition)
            let sql =
                "SELECT \(Self.selectColumns), t.rank FROM \(index.tableName) AS t "
                + "JOIN \(Documents.table) AS d ON d.\(Documents.rowID) = t.rowid WHERE \(index.tableName) MATCH ?"
                + pushed.map { " AND " + $0 }.joined()
            arguments += [match]
            arguments += pushedArguments
            return (sql, arguments, request.sort.isEmpty)
        }
    }

    private func stored(_ definition: IndexDefinition) throws -> StoredIndex {
        guard let index = indexes.first(where: { $0.definition == definition }) else {
            throw QueryErrorKind.indexNotFound.error("The index \(definition.name) was deleted meanwhile.", field: definition.name)
        }
        return index
    }

    // MARK: Rows

    /// The columns a candidate row needs: no revision tree unless `_conflicts` is asked for.
    static let columns = [Documents.rowID, Documents.id, Documents.winnerRev, Documents.body, Documents.attachments, Documents.tree]
    static let selectColumns = columns.map { "d." + $0 }.joined(separator: ", ")

    /// The winning revision as `_find` returns it: `_id`, `_rev`, the body, attachment stubs, and
    /// `_conflicts` when asked; nil when the winner's body was never received.
    static func document(from row: Row, conflicts: Bool) throws -> JSONObject? {
        let parsed = try row.withUnsafeData(atIndex: 3) { data in try data.map { try JSONValue(parsing: $0) } }
        guard case .object(let body)? = parsed else { return nil }
        let id: String = row[1]
        let rev: String = row[2]
        var document = body.prepending([("_id", .string(id)), ("_rev", .string(rev))])
        if let attachmentsText: String = row[4] {
            let table = try AttachmentTable(storageJSON: JSONValue(parsing: attachmentsText))
            document["_attachments"] = .object(
                JSONObject(table.sortedNames.compactMap { name in table.entries[name].map { (name, $0.stub) } }))
        }
        if conflicts {
            let treeBytes: Data = row[5]
            let tree = try RevisionTree(decoding: Array(treeBytes))
            if !tree.conflicts.isEmpty { document["_conflicts"] = .array(tree.conflicts.map { .string($0.description) }) }
        }
        return document
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
        for (index, field) in order.enumerated() {
            let comparison = Collation.compare(lhs.keys[index], rhs.keys[index])
            if comparison != 0 { return field.descending ? comparison > 0 : comparison < 0 }
        }
        let byID = Collation.compareBytes(lhs.id, rhs.id)
        return order.first?.descending == true ? byID > 0 : byID < 0
    }
}
