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
        var rows: [ViewRow] = []
        var skip = query.skip
        let limit = query.limit ?? Int.max
        let partitionLength = scan.partition.map { scan.encoding.key(.string($0)).count } ?? 0
        reading: for range in scan.ranges {
            var group: Group?
            var stop = false
            func finish(_ group: Group) throws -> Bool {
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
            /// Adds a row to its group, finishing the group before when the row starts another; false to stop.
            func take(key: UnsafeRawBufferPointer, first: () -> StoredRow, add: (inout Group) throws -> Void) throws -> Bool {
                let length = groupPrefixLength(of: key, grouping: grouping, encoding: scan.encoding, from: partitionLength)
                let prefix = UnsafeRawBufferPointer(rebasing: key[..<length])
                if let current = group, !current.prefix.elementsEqual(prefix) {
                    guard try finish(current) else {
                        stop = true
                        return false
                    }
                    group = nil
                }
                if group == nil { group = Group(prefix: Array(prefix), first: first(), reducer: reducer) }
                try add(&group!)
                return true
            }
            if query.descending {
                // A document's rows with one key are reduced in their stored order (JavaScript reduces and
                // `_first`/`_last` can tell), which ``ViewScan/rows(in:db:_:)`` restores.
                try scan.rows(in: range, db: db) { stored in
                    try stored.key.withUnsafeBytes { key in try take(key: key, first: { stored }, add: { try $0.add(stored) }) }
                }
            } else {
                try scan.rowsInPlace(in: range, db: db) { row in
                    try row.withBytes(0) { key in
                        try take(
                            key: UnsafeRawBufferPointer(key ?? UnsafeBufferPointer(start: nil, count: 0)), first: { StoredRow(row) },
                            add: { try $0.add(InPlaceViewRow(row: row)) })
                    }
                }
            }
            if stop { break reading }
            if let group, try !finish(group) { break reading }
        }
        return ViewResult(totalRows: nil, offset: nil, updateSeq: updateSeq, rows: rows)
    }

    /// How many leading bytes of a row's key its group's rows share.
    private static func groupPrefixLength(
        of key: UnsafeRawBufferPointer, grouping: ViewQuery.Grouping, encoding: ViewKeyEncoding, from start: Int
    ) -> Int {
        switch grouping {
        case .none: return 0
        case .exact: return key.count
        case .level(let level): return encoding.groupPrefixLength(of: key, level: level, from: start)
        }
    }

    /// The rows of one group being reduced.
    private struct Group {
        let prefix: [UInt8]
        let first: StoredRow
        let reducer: ViewReducer
        private var accumulator: ReduceAccumulator?
        /// `[[key, id], value]` rows waiting for a runtime or Swift reduce call.
        private var pending: [JSONValue] = []
        /// Reductions of the chunks already reduced.
        private var partials: [JSONValue] = []

        init(prefix: [UInt8], first: StoredRow, reducer: ViewReducer) {
            self.prefix = prefix
            self.first = first
            self.reducer = reducer
            if case .builtIn(let function) = reducer { accumulator = function.accumulator() }
        }

        mutating func add(_ row: some ReducibleViewRow) throws {
            if var accumulator {
                // Only `_first` and `_last` look at the document id; the others are not given it.
                switch accumulator.function {
                case .count:
                    accumulator.addRows(1)
                case .sum, .stats, .top, .bottom:
                    accumulator.add(key: .null, id: "", value: try row.parsedValue())
                case .approximateCountDistinct:
                    accumulator.add(key: try row.parsedKey(), id: "", value: .null)
                case .first, .last:
                    accumulator.add(key: try row.parsedKey(), id: row.documentID, value: try row.parsedValue())
                }
                self.accumulator = accumulator
                return
            }
            pending.append([[try row.parsedKey(), .string(row.documentID)], try row.parsedValue()])
            if pending.count >= ViewQueryExecutor.reduceChunk { try reducePending() }
        }

        private mutating func reducePending() throws {
            guard !pending.isEmpty else { return }
            switch reducer {
            case .runtime(let source, let runtime, _):
                do {
                    partials += try runtime.reduce([source], rows: pending, context: "")
                } catch let error as DesignFunctionError where error.name == "reduce_overflow_error" {
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
                } catch let error as DesignFunctionError where error.name == "reduce_overflow_error" {
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
