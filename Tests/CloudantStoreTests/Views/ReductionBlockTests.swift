import CloudantCore
import CloudantJavaScript
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// A reduce answered from stored reduction blocks must equal the reduce of every row, through writes,
/// deletes and purges, reading in either direction. The reference reduces, in the test, the rows the same
/// query reads with `reduce=false`: groups of consecutive rows with the same group key, each keyed by its
/// first row's, and `_count`, `_sum` or `_stats` of their whole-number values.
@Suite("Stored reduction blocks")
struct ReductionBlockTests {
    static func view(_ function: BuiltInReduce, name: String? = nil) -> SwiftView {
        SwiftView(name: name ?? "pairs\(function.name)", version: 1, reduce: .builtIn(function)) { document, emit in
            guard case .array(let keys)? = document["keys"] else { return }
            for key in keys { emit(key, document["n"] ?? .null) }
        }
    }

    /// Keys mostly `[group, item]`, some `[group]` and plain strings (groups of their own at any level).
    static func document(_ number: Int, using random: inout SplitMix64) -> JSONValue {
        var keys: [JSONValue] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let group = JSONValue.number(JSONNumber(Int.random(in: 0..<6, using: &random)))
            switch Int.random(in: 0..<10, using: &random) {
            case 0: keys.append(.string(Bool.random(using: &random) ? "x" : "y"))
            case 1: keys.append([group])
            default: keys.append([group, .number(JSONNumber(Int.random(in: 0..<40, using: &random)))])
            }
        }
        return [
            "_id": .string("d" + String(100_000 + number)), "keys": .array(keys),
            "n": .number(JSONNumber(Int.random(in: -50...50, using: &random))),
        ]
    }

    /// One batch of random edits: 150 documents changed, 80 deleted, 200 new (numbered from `next`).
    static func edit(
        _ temp: TemporaryStore, revs: inout [String: String], next: inout Int, using random: inout SplitMix64
    ) async throws {
        var ids = revs.keys.sorted()
        ids.shuffle(using: &random)
        var batch: [JSONValue] = []
        for id in ids.prefix(150) {
            var changed = document(0, using: &random).objectValue!
            changed["_id"] = .string(id)
            changed["_rev"] = .string(revs[id]!)
            batch.append(.object(changed))
        }
        let deleted = ids.dropFirst(150).prefix(80)
        for id in deleted { batch.append(["_id": .string(id), "_rev": .string(revs[id]!), "_deleted": true]) }
        for _ in 0..<200 {
            batch.append(document(next, using: &random))
            next += 1
        }
        for (id, rev) in try await temp.store.write(batch) { revs[id] = rev }
        for id in deleted { revs[id] = nil }
    }

    /// The queries compared: groupings, ranges (an exclusive end too), several keys, each read ascending and
    /// descending; `skip` and `limit` are added to each.
    static let queries: [[(String, String)]] = {
        let ascending: [[(String, String)]] = [
            [],
            [("group_level", "1")],
            [("group_level", "2")],
            [("group", "true")],
            [("group_level", "1"), ("startkey", "[1]"), ("endkey", "[4,20]")],
            [("group_level", "2"), ("startkey", "[2,3]"), ("endkey", "[2,30]"), ("inclusive_end", "false")],
            [("startkey", "[1,5]"), ("endkey", "[5]")],
            [("group", "true"), ("keys", "[[2,5],[4,1],\"x\",[3]]")],
        ]
        let descending = ascending.map { parameters in
            parameters.map { name, value in
                switch name {
                case "startkey": return ("endkey", value)
                case "endkey": return ("startkey", value)
                default: return (name, value)
                }
            } + [("descending", "true")]
        }
        return ascending + descending
    }()

    @Test(arguments: [BuiltInReduce.sum, .count, .stats])
    func aReduceFromStoredBlocksEqualsReducingEveryRowThroughWritesDeletesAndPurges(_ function: BuiltInReduce) async throws {
        var random = SplitMix64.fromEnvironmentOrRandom()
        let temp = try TemporaryStore()
        let view = Self.view(function)
        var revs = try await temp.store.write((0..<2500).map { Self.document($0, using: &random) })
        try await expectBlocksAnswerAsRows(view, temp, seed: random.seed)
        #expect(try ReductionBlockTables.counts(temp).blocks >= 10, "the rows are cut into blocks")

        var next = 2500
        for _ in 0..<3 {
            try await Self.edit(temp, revs: &revs, next: &next, using: &random)
            try await expectBlocksAnswerAsRows(view, temp, seed: random.seed)
            let counts = try ReductionBlockTables.counts(temp)
            #expect(counts.dirty == 0, "an update leaves no block dirty")
            // Rows cut again are spread over whole blocks, and a short clean block after them is cut with them,
            // so changes do not splinter the blocks: cut every 256 rows, `_stats` (whose every change recuts a
            // block) went from 20 blocks to over 60 in three updates of these 5,500 rows.
            #expect(counts.blocks <= 2 * counts.rows / ViewReductionBlocks.rowsPerBlock + 2, "\(counts), seed \(random.seed)")
        }

        // A purge marks the blocks it touches dirty; queries read their rows until the next update settles them.
        let purged = Array(revs.keys.sorted().prefix(20))
        _ = try await temp.store.purge(Dictionary(uniqueKeysWithValues: purged.map { ($0, [revs[$0]!]) }))
        for id in purged { revs[id] = nil }
        try await expectBlocksAnswerAsRows(view, temp, seed: random.seed)
        try await temp.store.write([Self.document(next, using: &random)])
        try await expectBlocksAnswerAsRows(view, temp, seed: random.seed)
        #expect(try ReductionBlockTables.counts(temp).dirty == 0)
    }

    @Test func aSwiftViewWhoseReduceChangesKeepsBlocksOfItsNewReduce() async throws {
        var random = SplitMix64(seed: 11)
        let temp = try TemporaryStore()
        try await temp.store.write((0..<1200).map { Self.document($0, using: &random) })
        let counted = Self.view(.count, name: "changing")
        let summed = Self.view(.sum, name: "changing")
        try await expectBlocksAnswerAsRows(counted, temp, seed: random.seed)
        try await expectBlocksAnswerAsRows(summed, temp, seed: random.seed)
        let total = try await temp.store.queryView(summed).rows.first?.value
        let expected = try await temp.store.queryView(summed, query: .parameters(("reduce", "false"))).rows
            .reduce(Int64(0)) { $0 + ($1.value.numberValue?.int64Value ?? 0) }
        #expect(total == .number(.integer(expected)))
    }

    @Test func rowsWhoseValuesTheFunctionRefusesGiveTheErrorReducingEveryRowGives() async throws {
        var random = SplitMix64(seed: 5)
        let temp = try TemporaryStore()
        var documents = (0..<1500).map { Self.document($0, using: &random) }
        documents[700] = ["_id": "bad", "keys": [[3, 1]], "n": "not a number"]
        try await temp.store.write(documents)
        // The block that holds the refused value keeps no partial: its rows are read, and give the error a
        // reduce of every row gives, in either direction. The reference is the same index with its blocks
        // forgotten (its catalogue emptied), which reduces every row.
        for function in [BuiltInReduce.sum, .stats] {
            let view = Self.view(function)
            var answers: [Result<[[JSONValue]], QueryFailure>] = []
            for parameters in Self.queries {
                answers.append(await outcome { try await temp.store.queryView(view, query: ViewQuery(parameters: parameters)) })
            }
            #expect(answers.contains { if case .failure = $0 { true } else { false } } || function == .sum)
            try ReductionBlockTables.forget(temp)
            for (parameters, answer) in zip(Self.queries, answers) {
                let reference = await outcome {
                    try await temp.store.queryView(view, query: ViewQuery(parameters: parameters + [("update", "false")]))
                }
                #expect(answer == reference, "\(function) \(parameters)")
            }
        }
    }

    @Test func aReduceTakesABlockWholeFromItsStoredPartialWithoutReadingItsRows() async throws {
        var random = SplitMix64(seed: 3)
        let temp = try TemporaryStore()
        try await temp.store.write((0..<1500).map { Self.document($0, using: &random) })
        let view = Self.view(.count)
        let total = try #require(try await temp.store.queryView(view).rows.first?.value.numberValue?.int64Value)
        // Every stored partial grows by 1000: a whole-range reduce that reads blocks sees each of them.
        let file = try DatabaseQueue(path: temp.store.fileURL.path)
        let blocks = try await file.write { db in
            let table = try #require(try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'view%_blocks'"))
            try db.execute(sql: "UPDATE \(table) SET partial = partial + 1000")
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        }
        #expect(blocks > 1)
        let tampered = try await temp.store.queryView(view, query: .parameters(("update", "false"))).rows.first?.value
        #expect(tampered == .number(.integer(total + Int64(blocks) * 1000)))
    }

    @Test func aJavaScriptReduceRereducesItsBlocksResultsAsCouchDBRereducesItsNodes() async throws {
        var random = SplitMix64.fromEnvironmentOrRandom()
        let temp = try viewStore()
        try await temp.store.put([
            "_id": "_design/js",
            "views": [
                "counted": [
                    "map": "function (doc) { if (doc.keys) doc.keys.forEach(function (key) { emit(key, doc.n); }); }",
                    "reduce": "function (keys, values, rereduce) { return rereduce ? sum(values) : values.length; }",
                ]
            ],
        ])
        var revs = try await temp.store.write((0..<1500).map { Self.document($0, using: &random) })
        var answers: [[[JSONValue]]] = []
        func answer() async throws {
            answers = []
            for parameters in Self.queries {
                answers.append(
                    try await temp.store.queryView(designDocument: "js", view: "counted", query: ViewQuery(parameters: parameters)).rows
                        .map { [$0.key, $0.value] })
            }
        }
        try await answer()
        #expect(try ReductionBlockTables.counts(temp).blocks >= 5)
        // Changes recut the blocks they touch with the function.
        var batch: [JSONValue] = []
        for (id, rev) in revs.sorted(by: { $0.key < $1.key }).prefix(300) {
            var changed = Self.document(0, using: &random).objectValue!
            changed["_id"] = .string(id)
            changed["_rev"] = .string(rev)
            batch.append(.object(changed))
        }
        for (id, rev) in try await temp.store.write(batch) { revs[id] = rev }
        try await answer()
        #expect(try ReductionBlockTables.counts(temp).dirty == 0)
        // A purge runs no design function: it leaves the blocks it touches dirty, and the next update (here
        // the queries') cuts them again, though no document changed since.
        let purged = Array(revs.keys.sorted().suffix(10))
        _ = try await temp.store.purge(Dictionary(uniqueKeysWithValues: purged.map { ($0, [revs[$0]!]) }))
        #expect(try ReductionBlockTables.counts(temp).dirty > 0)
        try await answer()
        #expect(try ReductionBlockTables.counts(temp).dirty == 0)
        try ReductionBlockTables.forget(temp)
        for (parameters, expected) in zip(Self.queries, answers) {
            let reference = try await temp.store.queryView(
                designDocument: "js", view: "counted", query: ViewQuery(parameters: parameters + [("update", "false")]))
            #expect(reference.rows.map { [$0.key, $0.value] } == expected, "\(parameters) (CLOUDANT_TEST_SEED=\(random.seed))")
        }
    }

    // MARK: Helpers

    private func expectBlocksAnswerAsRows(
        _ view: SwiftView, _ temp: TemporaryStore, seed: UInt64, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let function = try #require(view.reduce?.builtIn)
        for parameters in Self.queries {
            let answer = try await temp.store.queryView(view, query: ViewQuery(parameters: parameters)).rows.map { [$0.key, $0.value] }
            let rows = try await temp.store.queryView(view, query: ViewQuery(parameters: Self.unreduced(parameters))).rows
            let expected = Self.reduce(rows.map { ($0.key, $0.value) }, function, grouping: parameters)
            #expect(answer == expected, "\(view.name) \(parameters) (CLOUDANT_TEST_SEED=\(seed))", sourceLocation: sourceLocation)
            // `skip` and `limit` count groups, whichever way they were reduced.
            let page = try await temp.store.queryView(view, query: ViewQuery(parameters: parameters + [("skip", "2"), ("limit", "3")]))
            #expect(page.rows.map { [$0.key, $0.value] } == Array(expected.dropFirst(2).prefix(3)), sourceLocation: sourceLocation)
        }
    }

    /// The same query's rows: `reduce=false`, without the grouping parameters.
    static func unreduced(_ parameters: [(String, String)]) -> [(String, String)] {
        parameters.filter { $0.0 != "group" && $0.0 != "group_level" } + [("reduce", "false")]
    }

    /// The key of the group a row's key falls in under the query's `group` or `group_level` (null for none).
    static func groupKey(_ key: JSONValue, grouping parameters: [(String, String)]) -> JSONValue {
        if parameters.contains(where: { $0 == ("group", "true") }) { return key }
        guard let level = parameters.first(where: { $0.0 == "group_level" }).flatMap({ Int($0.1) }) else { return .null }
        if case .array(let elements) = key { return .array(Array(elements.prefix(level))) }
        return key
    }

    /// CouchDB's grouped reduce of rows in their order, each key of `keys` grouped on its own (the test's keys
    /// hold rows of one key each, so a group never spans two of them).
    private static func reduce(
        _ rows: [(key: JSONValue, value: JSONValue)], _ function: BuiltInReduce, grouping parameters: [(String, String)]
    ) -> [[JSONValue]] {
        var groups: [(key: JSONValue, values: [Int64])] = []
        for row in rows {
            let key = groupKey(row.key, grouping: parameters)
            let value = row.value.numberValue?.int64Value ?? 0
            if let last = groups.last, last.key == key {
                groups[groups.count - 1].values.append(value)
            } else {
                groups.append((key, [value]))
            }
        }
        return groups.map { group in
            let values = group.values
            let reduced: JSONValue
            switch function {
            case .count:
                reduced = .number(.integer(Int64(values.count)))
            case .sum:
                reduced = .number(.integer(values.reduce(0, +)))
            default:
                reduced = [
                    "sum": .number(.integer(values.reduce(0, +))), "count": .number(.integer(Int64(values.count))),
                    "min": .number(.integer(values.min()!)), "max": .number(.integer(values.max()!)),
                    "sumsqr": .number(.integer(values.reduce(0) { $0 + $1 * $1 })),
                ]
            }
            return [group.key, reduced]
        }
    }

    /// A query's rows as `[key, value]` pairs, or its error's description.
    private func outcome(_ query: () async throws -> ViewResult) async -> Result<[[JSONValue]], QueryFailure> {
        do {
            return .success(try await query().rows.map { [$0.key, $0.value] })
        } catch {
            return .failure(QueryFailure(description: String(describing: error)))
        }
    }

    private struct QueryFailure: Error, Equatable {
        var description: String
    }
}
