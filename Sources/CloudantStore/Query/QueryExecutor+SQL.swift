internal import CloudantCore
internal import Foundation
internal import GRDB

/// The fields of a covering index and where each row carries them: `nil` for `_id` and `_rev` (fixed
/// columns), else the position of the SQLite extraction of the field from the stored body.
struct CoveringColumns {
    var columns: [(path: FieldPath, column: Int?)]
}

extension QueryExecutor {
    /// The SELECT for the plan, and how to read its rows.
    struct Scan {
        var sql: String
        var arguments: [SQLValue]
        /// Rows carry a text search rank, and come in relevance order.
        var ranked = false
        /// `_all_docs` rows of design documents are read (CouchDB counts them) but never match.
        var skipsDesignDocuments = false
        /// The position of a 0/1 column saying whether the row can match at all, when the conditions SQL
        /// checks are carried instead of filtered (to count every row of the range).
        var passColumn: Int?
        /// Set when documents are made from the index row rather than parsed.
        var covering: CoveringColumns?
        /// When conditions SQL checks filtered the scan, the rows of the range those filters hid from the count
        /// of documents examined: `FROM … WHERE` of the range alone, and the condition that keeps the rows up
        /// to a page's last document (its arguments are that document's order keys and id).
        var examinedRange: ExaminedRange?
    }

    /// The range a filtered scan covered, counted again for CouchDB's `index_scan_warning`.
    struct ExaminedRange {
        /// The range CouchDB would read: the scan's `FROM` and the conditions that bound it.
        var from: String
        var conditions: [String]
        var arguments: [SQLValue]
        /// Keeps the rows up to and including a given one in scan order: `_id` alone, or a JSON index's keys.
        var throughLast: String
        var keyed: Bool
    }

    /// The SELECT for the plan's access path. The range CouchDB would scan is the filter; conditions that
    /// only narrow it (exact column ranges, body conditions, the entity kind) are filters too, or, when
    /// `execution_stats` are asked for, the pass column; the bookmark is a bound when the scan is ordered.
    func statement() throws -> Scan {
        // A scan held to a number of index rows must see each of them, as it must to count them.
        let countsEveryRow = request.executionStats || rowLimit != nil
        var filters: [String] = []
        var filterArguments: [SQLValue] = []
        var narrowing: [String] = []
        var narrowingArguments: [SQLValue] = []
        var extras: [String] = []
        var extraArguments: [SQLValue] = []
        // Whether the narrowing conditions only repeat the range's bounds, so they hide no row of it.
        var narrowingRepeatsBounds = false
        var scan = Scan(sql: "", arguments: [])
        let direction = plan.descending ? "DESC" : "ASC"
        let from: String
        let orderBy: String
        let throughLast: (condition: String, keyed: Bool)
        switch plan.access {
        case .allDocuments(let range):
            let id = "d.\(Documents.id)"
            filters.append("d.\(Documents.deleted) = 0")
            if countsEveryRow {
                scan.skipsDesignDocuments = true
            } else {
                // Design documents are read by CouchDB's scan (and counted) but never match: excluded here, after
                // the range is known.
                narrowing.append("\(id) NOT LIKE '\\_design/%' ESCAPE '\\'")
            }
            let (bounds, boundArguments) = Self.idBounds(range, column: id)
            filters += bounds
            filterArguments += boundArguments
            if let kind = QueryScan(request.selector).kind {
                narrowing.append("d.\(Documents.kind) = \(StoreSchema.DocumentKinds.numberOfBoundName)")
                narrowingArguments += [.text(kind)]
            }
            if let partition = request.partition {
                let (lower, upper) = DocumentPartition.idRange(partition)
                filters.append("\(id) >= ? AND \(id) < ?")
                filterArguments += [.text(lower), .text(upper)]
            }
            if plan.scanIsOrdered, let after {
                filters.append("\(id) \(plan.descending ? "<" : ">") ?")
                filterArguments += [.text(after.id)]
            }
            from = "\(Documents.table) AS d"
            orderBy = "\(id) \(direction)"
            throughLast = (plan.descending ? "\(id) >= ?" : "\(id) <= ?", false)

        case .json(let definition, let ranges):
            let index = try stored(definition)
            let keyColumns = index.scan.keyColumns
            let (bounds, boundArguments) = Self.compositeBounds(ranges, scan: index.scan)
            filters += bounds
            filterArguments += boundArguments
            let (exact, exactArguments) = Self.columnConditions(ranges, columns: keyColumns)
            narrowing += exact
            narrowingArguments += exactArguments
            narrowingRepeatsBounds = Self.columnConditionsRepeatBounds(ranges)
            if let partition = request.partition {
                let (lower, upper) = DocumentPartition.idRange(partition)
                filters.append("i.\(IndexTable.id) >= ? AND i.\(IndexTable.id) < ?")
                filterArguments += [.text(lower), .text(upper)]
            }
            if plan.scanIsOrdered, let after {
                guard after.keys.count == keyColumns.count else {
                    throw QueryErrorKind.invalidBookmark.error(
                        "Invalid bookmark value: pass back the bookmark of a previous result of the same query.",
                        field: "bookmark")
                }
                filters.append(plan.descending ? index.scan.beforeBookmark : index.scan.afterBookmark)
                for key in after.keys { filterArguments += [.blob(CollationKey.of(key))] }
                filterArguments += [.text(after.id)]
            }
            if plan.isCovering, request.readQuorum == 1, visibility == nil,
                let paths = Self.coveringPaths(index.paths)
            {
                var columns: [(path: FieldPath, column: Int?)] = []
                for (path, sqlPath) in zip(index.paths, paths) {
                    guard let sqlPath else {
                        columns.append((path, nil))
                        continue
                    }
                    columns.append((path, Column.rank + extras.count))
                    extras.append("cloudant_body(d.\(Documents.body)) -> ?")
                    extraArguments += [.text(sqlPath)]
                }
                scan.covering = CoveringColumns(columns: columns)
            }
            from = index.scan.from
            orderBy = plan.descending ? index.scan.orderDescending : index.scan.orderAscending
            throughLast = (plan.descending ? index.scan.throughRowDescending : index.scan.throughRowAscending, true)

        case .text(let definition, let match):
            let index = try stored(definition)
            // Other scans check body conditions in memory before parsing (`BodyPrefilter`); a text search's
            // in SQL. With a visibility, no condition of the reader's selector runs on a body before the
            // visibility has judged it: nothing is pushed.
            let (pushed, pushedArguments) =
                visibility != nil ? ([], []) : BodyPushdown.conditions(for: request.selector, body: "cloudant_body(d.\(Documents.body))")
            let sql =
                "SELECT \(Self.selectColumns), t.rank FROM \(index.tableName) AS t "
                + "JOIN \(Documents.table) AS d ON d.\(Documents.rowID) = t.rowid WHERE \(index.tableName) MATCH ?"
                + pushed.map { " AND " + $0 }.joined()
            var arguments: [SQLValue] = [.text(match)]
            arguments += pushedArguments
            // Text-search scores count every document of the database (term frequencies), those the reader may
            // not see included: with a visibility, matches come in `_id` order instead.
            return Scan(sql: sql, arguments: arguments, ranked: request.sort.isEmpty && visibility == nil)
        }
        if !countsEveryRow, !narrowing.isEmpty, !narrowingRepeatsBounds, scan.covering == nil, visibility == nil {
            scan.examinedRange = ExaminedRange(
                from: from, conditions: filters, arguments: filterArguments, throughLast: throughLast.condition, keyed: throughLast.keyed)
        }
        if countsEveryRow, !narrowing.isEmpty {
            scan.passColumn = Column.rank + extras.count
            extras.append("CASE WHEN " + narrowing.joined(separator: " AND ") + " THEN 1 ELSE 0 END")
            extraArguments += narrowingArguments
        } else {
            filters += narrowing
            filterArguments += narrowingArguments
        }
        scan.sql =
            "SELECT " + ([Self.selectColumns] + extras).joined(separator: ", ") + " FROM " + from
            + (filters.isEmpty ? "" : " WHERE " + filters.joined(separator: " AND ")) + " ORDER BY " + orderBy
        scan.arguments = extraArguments
        scan.arguments += filterArguments
        return scan
    }

    /// The fields of a JSON index scan's leading key columns that it narrows to one value (`$eq`): the
    /// column's equality on collation keys is exactly Mango's `$eq`.
    func equalitiesTheIndexChecks() throws -> Set<FieldPath> {
        guard case .json(let definition, let ranges) = plan.access else { return [] }
        var fields: Set<FieldPath> = []
        for (range, path) in zip(ranges, try stored(definition).paths) {
            // As `columnConditions` makes the exact equality: only for a JSON value.
            if case .range(.eq(let value), .eq) = range, value.json != nil { fields.insert(path) }
        }
        return fields
    }

    /// The ends of each leading key column's range that ``columnConditions(_:columns:)`` checks: those with a
    /// collation key (not CouchDB's `min` and `max` sentinels).
    func boundsTheIndexChecks() throws -> [FieldPath: IndexCheckedBounds] {
        guard case .json(let definition, let ranges) = plan.access else { return [:] }
        var checked: [FieldPath: IndexCheckedBounds] = [:]
        for (range, path) in zip(ranges, try stored(definition).paths) {
            guard case .range(let lower, let upper) = range else { continue }
            checked[path] = IndexCheckedBounds(lower: Self.lowerKey(lower.value) != nil, upper: Self.upperKey(upper.value) != nil)
        }
        return checked
    }

    func stored(_ definition: IndexDefinition) throws -> StoredIndex {
        guard let index = indexes.first(where: { $0.definition == definition }) else {
            throw QueryErrorKind.indexNotFound.error("The index \(definition.name) was deleted meanwhile.", field: definition.name)
        }
        return index
    }

    // MARK: Ranges as SQL

    /// The `_all_docs` range on `_id` (CouchDB's start and end keys, both inclusive). Ids compare as raw
    /// bytes, as CouchDB's `_all_docs` does, where every string sorts after every other JSON value: a
    /// non-string start bounds nothing, a non-string end leaves nothing.
    static func idBounds(_ range: IndexRange, column: String) -> ([String], [SQLValue]) {
        guard case .range(let lower, let upper) = range else { return (["0"], []) }
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        if case .string(let start)? = lower.value.json {
            conditions.append("\(column) >= ?")
            arguments += [.text(start)]
        }
        switch upper.value {
        case .max: break
        case .prefixEnd(let prefix):
            // Every id with the prefix sorts before the prefix followed by U+10FFFF.
            conditions.append("\(column) < ?")
            arguments += [.text(prefix + "\u{10FFFF}")]
        case .json(.string(let end)):
            conditions.append("\(column) <= ?")
            arguments += [.text(end)]
        case .json, .min:
            conditions.append("0")
        }
        return (conditions, arguments)
    }

    /// CouchDB's view range over the key columns: from the start key to the end key, both inclusive, as
    /// row values (a key with the same leading values sorts after a shorter start key, and before the
    /// `<MAX>` that ends every end key).
    static func compositeBounds(_ ranges: [IndexRange], scan: StoredIndex.ScanSQL) -> ([String], [SQLValue]) {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        // One end: the comparison for as many key columns as the end has values, and their encoded keys.
        func bound(_ key: [IndexRange.KeyPart], encoded: (IndexRange.Value) -> [UInt8]?, comparisons: [String]) {
            let parts = key.compactMap { part -> [UInt8]? in
                if case .value(let value) = part { return encoded(value) }
                return nil
            }
            guard !parts.isEmpty else { return }
            conditions.append(comparisons[parts.count - 1])
            for part in parts { arguments.append(.blob(part)) }
        }
        bound(IndexRange.startKey(ranges), encoded: lowerKey, comparisons: scan.atLeast)
        bound(IndexRange.endKey(ranges), encoded: upperKey, comparisons: scan.atMost)
        return (conditions, arguments)
    }

    /// Each leading column's own range, which the whole selector implies: exact for `$eq` (so SQLite seeks
    /// on the columns after it) and the comparisons; a `$beginsWith` ends where strings with the prefix do.
    static func columnConditions(_ ranges: [IndexRange], columns: [String]) -> ([String], [SQLValue]) {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        for (range, column) in zip(ranges, columns) {
            guard case .range(let lower, let upper) = range else { continue }
            if case .eq(let value) = lower, case .eq = upper, let key = value.json.map(CollationKey.of) {
                conditions.append("\(column) = ?")
                arguments.append(.blob(key))
                continue
            }
            if let key = lowerKey(lower.value) {
                conditions.append("\(column) \(lower.isInclusive ? ">=" : ">") ?")
                arguments.append(.blob(key))
            }
            if case .prefixEnd = upper.value, let key = upperKey(upper.value) {
                conditions.append("\(column) < ?")
                arguments.append(.blob(key))
            } else if let key = upperKey(upper.value) {
                conditions.append("\(column) \(upper.isInclusive ? "<=" : "<") ?")
                arguments.append(.blob(key))
            }
        }
        return (conditions, arguments)
    }

    /// Whether ``columnConditions(_:columns:)`` keeps no row that ``compositeBounds(_:scan:)`` lets through, so
    /// a scan narrowed by them hides none from CouchDB's count: every ranged column but the last held to one
    /// value (the bounds then fix those columns for every row between them), and the last one's ends inclusive
    /// or open, as the bounds are. A strict end (`$gt`, `$lt`) or the end of a `$beginsWith` leaves rows
    /// equal to it between the bounds; a range on a column after a ranged one leaves whole runs of rows.
    static func columnConditionsRepeatBounds(_ ranges: [IndexRange]) -> Bool {
        for (position, range) in ranges.enumerated() {
            guard case .range(let lower, let upper) = range else { return false }
            if case .eq(let value) = lower, case .eq = upper, value.json != nil { continue }
            guard position == ranges.count - 1 else { return false }
            let lowerRepeated = lower.value.isSentinel || (lower.isInclusive && lower.value.json != nil)
            let upperRepeated: Bool
            switch upper.value {
            case .min, .max: upperRepeated = true
            case .json: upperRepeated = upper.isInclusive
            case .prefixEnd: upperRepeated = false
            }
            return lowerRepeated && upperRepeated
        }
        return true
    }

    private static func lowerKey(_ value: IndexRange.Value) -> [UInt8]? {
        value.json.map(CollationKey.of)
    }

    /// An upper key; for the end of a `$beginsWith`, a key above every string with the prefix.
    private static func upperKey(_ value: IndexRange.Value) -> [UInt8]? {
        guard case .prefixEnd(let prefix) = value else { return value.json.map(CollationKey.of) }
        return CollationKey.prefixRange(prefix)?.upper ?? CollationKey.typeRange(of: .string(prefix)).upper
    }


    /// SQLite JSON paths (`$."a"."b"`) of the index fields, `nil` for `_id` and `_rev`; nil altogether when
    /// a field cannot be read that way (a numeric segment, which Mango reads as an array index or a
    /// member name, or a segment with `"`), so the documents are read whole.
    static func coveringPaths(_ paths: [FieldPath]) -> [String?]? {
        var result: [String?] = []
        for path in paths {
            if path.segments == ["_id"] || path.segments == ["_rev"] {
                result.append(nil)
                continue
            }
            guard path.segments.allSatisfy({ segment in
                !segment.contains("\"") && !segment.utf8.allSatisfy { (0x30...0x39).contains($0) }
            }) else { return nil }
            result.append("$" + path.segments.map { ".\"" + $0 + "\"" }.joined())
        }
        return result
    }
}
