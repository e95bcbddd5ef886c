internal import CloudantCore
internal import Foundation
internal import GRDB

/// A view's reduce function, as the store runs it.
enum ViewReducer: Sendable {
    /// A built-in (`_sum`, `_count`, …), run in Swift.
    case builtIn(BuiltInReduce)
    /// A JavaScript function run by a design-function runtime; `context` names the view in the messages of
    /// its last rereduce (CouchDB's coordinator names `db/_design/ddoc/_view/view`).
    case runtime(source: String, runtime: any DesignFunctionRuntime, context: String)
    /// A Swift view's reduce function.
    case swift(SwiftReduce)

    /// Whether the store computes it itself (a built-in), so that it can read rows in any order it documents.
    var isBuiltIn: Bool {
        if case .builtIn = self { return true }
        return false
    }
}

extension ViewQueryExecutor {
    /// Rows reduced per call into a runtime's reduce function, and reductions per rereduce call.
    static let reduceChunk = 1000

    /// Reduced rows: one per group of rows the grouping makes (each key range of `keys` on its own), after
    /// `skip`, at most `limit` (CouchDB's `red_fold`).
    static func reduce(
        _ scan: ViewScan, reducer: ViewReducer, grouping: ViewQuery.Grouping, updateSeq: Int64?, in db: Database
    ) throws -> ViewResult {
        let query = scan.query
        var fold = Fold(
            reducer: reducer, grouping: grouping, encoding: scan.encoding,
            partitionLength: scan.partition.map { scan.encoding.key(.string($0)).count } ?? 0,
            descending: query.descending, skip: query.skip, limit: query.limit ?? Int.max)
        let blocked = try blockedFunction(scan, reducer: reducer, in: db)
        for range in scan.ranges {
            if let blocked {
                try reduceWithBlocks(scan, function: blocked, range: range, fold: &fold, in: db)
            } else {
                try reduceRows(scan, in: range, fold: &fold, db: db)
            }
            guard try fold.endRange() else { break }
        }
        return ViewResult(totalRows: nil, offset: nil, updateSeq: updateSeq, rows: fold.rows)
    }

    /// The name of the reduce whose stored reduction blocks (``ViewReductionBlocks``) answer this query, if
    /// the index keeps blocks for it: a built-in (whose accumulator takes partials in either direction,
    /// ``BuiltInReduce/accumulator(readingBackward:)``), or a runtime's function.
    private static func blockedFunction(_ scan: ViewScan, reducer: ViewReducer, in db: Database) throws -> String? {
        let name: String
        switch reducer {
        case .builtIn(let function): name = function.name
        case .runtime(let source, _, _): name = ViewBlockReduction.runtimeName(source)
        case .swift: return nil
        }
        return try ViewReductionBlocks.has(scan.table, view: scan.view, function: name, in: db) ? name : nil
    }

    /// Reduces the rows of a range between two positions (all of it without them), in the query's order.
    ///
    /// A built-in reads them in place, backwards when the query is descending (its accumulator knows); a
    /// function the store does not know is given a document's rows with one key in their stored order
    /// whichever the direction (JavaScript reduces can tell), which ``ViewScan/rows(in:after:before:db:_:)``
    /// restores.
    private static func reduceRows(
        _ scan: ViewScan, in range: ViewScan.Range, after: ViewReductionBlocks.Position? = nil,
        before: ViewReductionBlocks.Position? = nil, fold: inout Fold, db: Database
    ) throws {
        if scan.query.descending, !fold.reducer.isBuiltIn {
            try scan.rows(in: range, after: after, before: before, db: db) { stored in
                try stored.key.withUnsafeBytes { key in
                    try fold.take(key: key.bindMemory(to: UInt8.self), first: { stored }, add: { try $0.add(stored) })
                }
            }
            return
        }
        try scan.rowsInPlace(in: range, after: after, before: before, db: db) { row in
            try row.withBytes(0) { key in
                try fold.take(
                    key: key ?? UnsafeBufferPointer(start: nil, count: 0), first: { StoredRow(row) },
                    add: { try $0.add(InPlaceViewRow(row: row)) })
            }
        }
    }

    /// Reduces one range, taking each clean block whose rows are all in the range and in one group as its
    /// stored partial, and reading the rows before, between and after those blocks one by one (in the
    /// query's order, a document's rows with one key in their stored order, as without blocks).
    private static func reduceWithBlocks(
        _ scan: ViewScan, function: String, range: ViewScan.Range, fold: inout Fold, in db: Database
    ) throws {
        let descending = scan.query.descending
        // The edge of the rows already reduced: rows past it in the query's order are still to read.
        var edge: ViewReductionBlocks.Position?
        func readRows(upTo next: ViewReductionBlocks.Position?) throws {
            try reduceRows(
                scan, in: range, after: descending ? next : edge, before: descending ? edge : next, fold: &fold, db: db)
        }
        for block in try ViewReductionBlocks.blocks(of: scan, function: function, in: range, db: db)
        where block.ends && fold.holdsOneGroup(from: block.start.key, to: block.end.key) {
            try readRows(upTo: descending ? block.end : block.start)
            guard !fold.stopped, try fold.take(block) else { return }
            edge = descending ? block.start : block.end
        }
        try readRows(upTo: nil)
    }

    /// A reduce in progress: the group being reduced, and the reduced rows so far.
    ///
    /// A value rather than local variables captured by nested functions: a reduce reads a million rows
    /// through these methods, and captured variables were checked for exclusive access at run time on
    /// every row (a tenth of a grouped `_sum`).
    private struct Fold {
        let reducer: ViewReducer
        let grouping: ViewQuery.Grouping
        let encoding: ViewKeyEncoding
        /// The bytes a partitioned view's keys start with, which no group prefix counts.
        let partitionLength: Int
        /// Whether rows and blocks come in reverse index order.
        let descending: Bool
        var skip: Int
        let limit: Int
        var rows: [ViewRow] = []
        var group: Group?
        private(set) var stopped = false

        /// Adds a row to its group, finishing the group before when the row starts another; false to stop.
        mutating func take(key: UnsafeBufferPointer<UInt8>, first: () -> StoredRow, add: (inout Group) throws -> Void) throws -> Bool {
            // Most rows are in the group of the row before: told from the group's bytes alone.
            if group?.surelyHolds(key) == true {
                try add(&group!)
                return true
            }
            let (length, complete) = groupPrefix(of: key, grouping: grouping, encoding: encoding, from: partitionLength)
            let prefix = UnsafeBufferPointer(rebasing: key[..<length])
            if let current = group, !current.hasPrefix(equalTo: prefix) {
                group = nil
                guard try finish(current) else {
                    stopped = true
                    return false
                }
            }
            if group == nil { group = Group(prefix: Array(prefix), complete: complete, first: first(), reducer: reducer, descending: descending) }
            try add(&group!)
            return true
        }

        /// Whether every key from `first` to `last` is in one group: their group prefixes are the same bytes
        /// (a whole `group_level` prefix, which every key between shares, or the same exact key).
        func holdsOneGroup(from first: [UInt8], to last: [UInt8]) -> Bool {
            let firstPrefix = first.withUnsafeBufferPointer {
                groupPrefix(of: $0, grouping: grouping, encoding: encoding, from: partitionLength).length
            }
            let lastPrefix = last.withUnsafeBufferPointer {
                groupPrefix(of: $0, grouping: grouping, encoding: encoding, from: partitionLength).length
            }
            return first[..<firstPrefix] == last[..<lastPrefix]
        }

        /// Adds a block's partial to its group (every row of it in one group, ``holdsOneGroup(from:to:)``),
        /// finishing the group before when the block starts another; false to stop. A group that starts with
        /// the block takes its key from the block's first row read: its last, reading descending.
        mutating func take(_ block: ViewReductionBlocks.Block) throws -> Bool {
            let (length, complete) = block.start.key.withUnsafeBufferPointer { key in
                groupPrefix(of: key, grouping: grouping, encoding: encoding, from: partitionLength)
            }
            let prefix = Array(block.start.key[..<length])
            if let current = group, !prefix.withUnsafeBufferPointer({ current.hasPrefix(equalTo: $0) }) {
                group = nil
                guard try finish(current) else {
                    stopped = true
                    return false
                }
            }
            if group == nil {
                let row = descending ? block.end : block.start
                let first = StoredRow(
                    key: Data(row.key), documentID: row.documentID, keyJSON: descending ? block.lastKeyJSON : block.firstKeyJSON,
                    valueJSON: "null")
                group = Group(prefix: prefix, complete: complete, first: first, reducer: reducer, descending: descending)
            }
            try group!.addPartial(block.partial)
            return true
        }

        /// Ends a key range (each key of `keys` groups on its own); false when no more rows are wanted.
        mutating func endRange() throws -> Bool {
            defer { group = nil }
            if stopped { return false }
            if let group, try !finish(group) { return false }
            return true
        }

        /// Adds a finished group's row unless `skip` passes over it; false once `limit` rows are there.
        private mutating func finish(_ group: Group) throws -> Bool {
            if skip > 0 {
                skip -= 1
                return true
            }
            guard rows.count < limit else { return false }
            let value = try group.value()
            if case .object(let object) = value, object.members.count == 1,
                case .string(let reason)? = object["reduce_overflow_error"]
            {
                // CouchDB's coordinator answers a reduction that overflowed with an error row.
                rows.append(ViewRow(key: .null, error: "reduce_overflow_error", reason: reason))
            } else {
                rows.append(ViewRow(id: nil, key: try group.key(grouping), value: value))
            }
            return rows.count < limit
        }
    }

    /// How many leading bytes of a row's key its group's rows share, and whether every key that starts with
    /// them is in the group (see ``ViewKeyEncoding/groupPrefix(in:level:from:)``).
    private static func groupPrefix(
        of key: UnsafeBufferPointer<UInt8>, grouping: ViewQuery.Grouping, encoding: ViewKeyEncoding, from start: Int
    ) -> (length: Int, complete: Bool) {
        switch grouping {
        case .none: return (0, true)
        case .exact: return (key.count, false)
        case .level(let level): return encoding.groupPrefix(in: key, level: level, from: start)
        }
    }

    /// The rows of one group being reduced.
    private struct Group {
        /// The bytes every key of the group starts with.
        let prefix: [UInt8]
        /// Whether every key starting with `prefix` is in the group (a whole `group_level` prefix, or no
        /// grouping); otherwise only a key of exactly those bytes is known to be without measuring its prefix.
        let complete: Bool
        let first: StoredRow
        let reducer: ViewReducer
        private var accumulator: ReduceAccumulator?
        /// `[[key, id], value]` rows waiting for a runtime or Swift reduce call.
        private var pending: [JSONValue] = []
        /// Reductions of the chunks already reduced.
        private var partials: [JSONValue] = []

        init(prefix: [UInt8], complete: Bool, first: StoredRow, reducer: ViewReducer, descending: Bool) {
            self.prefix = prefix
            self.complete = complete
            self.first = first
            self.reducer = reducer
            if case .builtIn(let function) = reducer { accumulator = function.accumulator(readingBackward: descending) }
        }

        /// Whether `key` is certainly in this group, from its bytes alone: it starts with a complete prefix,
        /// or it is the prefix. False means "measure its prefix", not "another group".
        func surelyHolds(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
            guard key.count >= prefix.count, complete || key.count == prefix.count else { return false }
            return hasPrefix(equalTo: UnsafeBufferPointer(rebasing: key[..<prefix.count]))
        }

        /// Whether the group's prefix is `other`, byte for byte.
        func hasPrefix(equalTo other: UnsafeBufferPointer<UInt8>) -> Bool {
            guard other.count == prefix.count else { return false }
            guard let base = other.baseAddress, !prefix.isEmpty else { return true }
            return prefix.withUnsafeBufferPointer { memcmp($0.baseAddress!, base, prefix.count) == 0 }
        }

        mutating func add(_ row: some ReducibleViewRow) throws {
            // The accumulator is changed where it is (`accumulator!`), never copied out and back: a copy per
            // row was a fifth of a grouped `_sum`.
            if accumulator != nil {
                try accumulator!.add(row)
                return
            }
            pending.append([[try row.parsedKey(), .string(row.documentID)], try row.parsedValue()])
            if pending.count >= ViewQueryExecutor.reduceChunk { try reducePending() }
        }

        /// Adds a stored block's partial: a built-in's (``ReduceAccumulator/partial``), or a runtime's reduce
        /// result, rereduced with the others after the rows read before it are reduced (so the values keep
        /// their rows' order, as CouchDB rereduces its nodes in key order).
        mutating func addPartial(_ partial: JSONValue) throws {
            if accumulator != nil {
                accumulator!.addPartial(partial)
                return
            }
            try reducePending()
            partials.append(partial)
        }

        private mutating func reducePending() throws {
            guard !pending.isEmpty else { return }
            switch reducer {
            case .runtime(let source, let runtime, _):
                do {
                    partials += try runtime.reduce([source], rows: pending, context: "")
                } catch let failure as CloudantError where failure.designFunctionError?.name == "reduce_overflow_error" {
                    let error = failure.designFunctionError ?? DesignFunctionError(name: "reduce_overflow_error", reason: failure.message)
                    partials.append(["reduce_overflow_error": .string(error.reason)])
                }
            case .swift(let reduce):
                partials.append(try reduce.reduce(rows: pending))
            case .builtIn:
                break
            }
            pending.removeAll(keepingCapacity: true)
        }

        /// The group's reduction, finished: the chunks' reductions rereduced, always once more at the end, as
        /// CouchDB's coordinator rereduces what its shards reduced even when there is one.
        func value() throws -> JSONValue {
            if let accumulator { return try accumulator.result() }
            var group = self
            try group.reducePending()
            var values = group.partials
            repeat {
                let last = values.count <= ViewQueryExecutor.reduceChunk
                var next: [JSONValue] = []
                for start in stride(from: 0, to: values.count, by: ViewQueryExecutor.reduceChunk) {
                    let chunk = Array(values[start..<min(values.count, start + ViewQueryExecutor.reduceChunk)])
                    next.append(try rereduce(chunk, final: last))
                }
                values = next
            } while values.count > 1
            return values.first ?? .null
        }

        /// One rereduce; an overflow among the values is the result, without calling the function.
        private func rereduce(_ values: [JSONValue], final: Bool) throws -> JSONValue {
            if let overflow = values.first(where: { $0.objectValue?["reduce_overflow_error"] != nil && $0.objectValue?.members.count == 1 }) {
                return overflow
            }
            switch reducer {
            case .runtime(let source, let runtime, let context):
                do {
                    return try runtime.rereduce([source], values: values, context: final ? context : "").first ?? .null
                } catch let failure as CloudantError where failure.designFunctionError?.name == "reduce_overflow_error" {
                    let error = failure.designFunctionError ?? DesignFunctionError(name: "reduce_overflow_error", reason: failure.message)
                    return ["reduce_overflow_error": .string(error.reason)]
                }
            case .swift(let reduce):
                return try reduce.rereduce(values: values)
            case .builtIn:
                return values.first ?? .null
            }
        }

        /// The group's key: `null` for the whole range, the first row's key, or its first `level` elements.
        func key(_ grouping: ViewQuery.Grouping) throws -> JSONValue {
            switch grouping {
            case .none: return .null
            case .exact: return try first.parsedKey()
            case .level(let level):
                let key = try first.parsedKey()
                guard case .array(let elements) = key else { return key }
                return .array(Array(elements.prefix(level)))
            }
        }
    }
}

extension ReduceAccumulator {
    /// Adds one stored row, reading of it only what the function needs: only `_first` and `_last` look at
    /// the document id, and `_sum` adds a whole number from its text without parsing it.
    mutating func add(_ row: some ReducibleViewRow) throws {
        switch function {
        case .count:
            addRows(1)
        case .sum:
            if !row.withValueText({ addWholeNumberText($0) }) {
                add(key: .null, id: "", value: try row.parsedValue())
            }
        case .stats, .top, .bottom:
            add(key: .null, id: "", value: try row.parsedValue())
        case .approximateCountDistinct:
            add(key: try row.parsedKey(), id: "", value: .null)
        case .first, .last:
            add(key: try row.parsedKey(), id: row.documentID, value: try row.parsedValue())
        }
    }
}
