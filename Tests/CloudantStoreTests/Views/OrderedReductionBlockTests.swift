import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// `_top_N`, `_bottom_N`, `_first`, `_last` and `_approx_count_distinct` keep stored reduction blocks too. The
/// reference folds, in the test, the rows the same query reads with `reduce=false` through the built-in's own
/// accumulator, each group's rows in index order: the reduce CouchDB defines, row by row. The first four choose
/// between tied rows (values that collate equal, a document's rows with one key) by their place in the index,
/// so a group reduces to one value whichever way it is read, and descending queries read blocks too.
@Suite("Stored reduction blocks of ranked, edge and distinct reduces")
struct OrderedReductionBlockTests {
    static let functions: [BuiltInReduce] = [.top(3), .bottom(2), .first, .last, .approximateCountDistinct]

    /// `ReductionBlockTests`' keys; each emit's value is `[n, emit]` for `_first` and `_last` (a document's
    /// rows with one key told apart), otherwise `n` written as an integer or a float, so values that collate
    /// equal meet.
    static func view(_ function: BuiltInReduce) -> SwiftView {
        SwiftView(name: "ordered\(function.name)", version: 1, reduce: .builtIn(function)) { document, emit in
            guard case .array(let keys)? = document["keys"], let n = document["n"]?.numberValue?.int64Value else { return }
            for (emitted, key) in keys.enumerated() {
                switch function {
                case .first, .last: emit(key, [.number(.integer(n)), .number(JSONNumber(emitted))])
                default: emit(key, emitted % 2 == 0 ? .number(.integer(n)) : .number(.double(Double(n))))
                }
            }
        }
    }

    @Test(arguments: functions)
    func aReduceFromStoredBlocksEqualsFoldingItsRowsThroughWritesDeletesAndPurges(_ function: BuiltInReduce) async throws {
        var random = SplitMix64.fromEnvironmentOrRandom()
        let temp = try TemporaryStore()
        let view = Self.view(function)
        var revs = try await temp.store.write((0..<2500).map { ReductionBlockTests.document($0, using: &random) })
        try await expectBlocksAnswerAsFoldedRows(view, function, temp, seed: random.seed)
        #expect(try ReductionBlockTables.counts(temp).blocks >= 10, "the rows are cut into blocks")

        var next = 2500
        for _ in 0..<2 {
            try await ReductionBlockTests.edit(temp, revs: &revs, next: &next, using: &random)
            try await expectBlocksAnswerAsFoldedRows(view, function, temp, seed: random.seed)
            #expect(try ReductionBlockTables.counts(temp).dirty == 0, "an update leaves no block dirty")
        }

        let purged = Array(revs.keys.sorted().prefix(20))
        _ = try await temp.store.purge(Dictionary(uniqueKeysWithValues: purged.map { ($0, [revs[$0]!]) }))
        try await expectBlocksAnswerAsFoldedRows(view, function, temp, seed: random.seed)
    }

    @Test(arguments: [BuiltInReduce.top(3), .last])
    func queriesReadEitherWayTakeTheStoredPartials(_ function: BuiltInReduce) async throws {
        let temp = try await Self.store(seed: 13)
        let view = Self.view(function)
        _ = try await temp.store.queryView(view)
        // Every block now claims a row past every real key (an object collates after arrays and strings),
        // or a top value above every real one.
        let claim = function == .last ? #"'[{"z":1},"zz","stored"]'"# : #"'["stored"]'"#
        #expect(try ReductionBlockTables.tamper(temp, set: claim) > 1)
        for descending in ["false", "true"] {
            let answer = try await temp.store.queryView(view, query: .parameters(("update", "false"), ("descending", descending)))
            let value = try #require(answer.rows.first?.value)
            #expect(function == .last ? value == "stored" : value.arrayValue?.first == "stored", "descending=\(descending)")
        }
    }

    /// Rows that tie, read backwards: each group's value is the one reading forwards gives, with blocks and
    /// without them (the blocks forgotten, every row read).
    @Test(arguments: functions)
    func aGroupReducesToTheSameValueReadEitherWay(_ function: BuiltInReduce) async throws {
        var random = SplitMix64.fromEnvironmentOrRandom()
        let temp = try TemporaryStore()
        let view = Self.view(function)
        try await temp.store.write((0..<1500).map { ReductionBlockTests.document($0, using: &random) })
        let groupings: [[(String, String)]] = [[("group_level", "1")], [("group", "true")], []]
        var answers: [[String]] = []
        for grouping in groupings {
            let ascending = try await temp.store.queryView(view, query: ViewQuery(parameters: grouping)).rows
            let descending = try await temp.store.queryView(view, query: ViewQuery(parameters: grouping + [("descending", "true")])).rows
            #expect(descending.count > 0)
            #expect(Self.text(descending) == Self.text(ascending.reversed()), "\(grouping) (CLOUDANT_TEST_SEED=\(random.seed))")
            answers.append(Self.text(descending))
        }
        try ReductionBlockTables.forget(temp)
        for (grouping, answer) in zip(groupings, answers) {
            let unblocked = try await temp.store.queryView(
                view, query: ViewQuery(parameters: grouping + [("descending", "true"), ("update", "false")])).rows
            #expect(Self.text(unblocked) == answer, "\(grouping) without blocks (CLOUDANT_TEST_SEED=\(random.seed))")
        }
    }

    @Test func aDistinctCountTakesTheStoredSketchesReadEitherWay() async throws {
        let temp = try await Self.store(seed: 17)
        let distinct = Self.view(.approximateCountDistinct)
        let truth = try #require(try await temp.store.queryView(distinct).rows.first?.value)
        // One register set to its highest value in every stored sketch: the estimate moves.
        #expect(try ReductionBlockTables.tamper(temp, set: #"'"7ff36"'"#) > 1)
        for descending in ["false", "true"] {
            let tampered = try await temp.store.queryView(
                distinct, query: .parameters(("update", "false"), ("descending", descending))
            ).rows.first?.value
            #expect(tampered != truth, "descending=\(descending)")
        }
    }

    // MARK: Helpers

    /// Rows as JSON text, so that values equal as numbers but written apart (`5` and `5.0`) differ.
    private static func text(_ rows: some Sequence<ViewRow>) -> [String] { rows.map { text([$0.key, $0.value]) } }
    private static func text(_ row: [JSONValue]) -> String { JSONValue.array(row).jsonString() }

    /// A store of 1,500 of `ReductionBlockTests`' documents.
    private static func store(seed: UInt64) async throws -> TemporaryStore {
        var random = SplitMix64(seed: seed)
        let temp = try TemporaryStore()
        try await temp.store.write((0..<1500).map { ReductionBlockTests.document($0, using: &random) })
        return temp
    }

    private func expectBlocksAnswerAsFoldedRows(
        _ view: SwiftView, _ function: BuiltInReduce, _ temp: TemporaryStore, seed: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        for parameters in ReductionBlockTests.queries {
            let answer = try await temp.store.queryView(view, query: ViewQuery(parameters: parameters)).rows.map { [$0.key, $0.value] }
            let rows = try await temp.store.queryView(view, query: ViewQuery(parameters: ReductionBlockTests.unreduced(parameters))).rows
            let expected = try Self.fold(rows, function, grouping: parameters)
            #expect(answer.map(Self.text) == expected.map(Self.text), "\(view.name) \(parameters) (CLOUDANT_TEST_SEED=\(seed))", sourceLocation: sourceLocation)
            let page = try await temp.store.queryView(view, query: ViewQuery(parameters: parameters + [("skip", "2"), ("limit", "3")]))
            #expect(Self.text(page.rows) == expected.dropFirst(2).prefix(3).map(Self.text), sourceLocation: sourceLocation)
        }
    }

    /// Groups of consecutive rows with one group key, each keyed by its first row's and reduced row by row in
    /// index order (the test's keys hold rows of one key each, so a group never spans two of them).
    ///
    /// A descending read gives a document's rows with one key in their stored order: reversing a group, then
    /// each such run again, puts its rows back in index order.
    private static func fold(_ rows: [ViewRow], _ function: BuiltInReduce, grouping parameters: [(String, String)]) throws -> [[JSONValue]] {
        var groups: [(key: JSONValue, rows: [ViewRow])] = []
        for row in rows {
            let key = ReductionBlockTests.groupKey(row.key, grouping: parameters)
            if groups.last?.key != key { groups.append((key, [])) }
            groups[groups.count - 1].rows.append(row)
        }
        let descending = parameters.contains { $0 == ("descending", "true") }
        return try groups.map { group in
            var accumulator = function.accumulator()
            for row in descending ? Self.indexOrder(ofDescending: group.rows) : group.rows {
                accumulator.add(key: row.key, id: row.id ?? "", value: row.value)
            }
            return [group.key, try accumulator.result()]
        }
    }

    private static func indexOrder(ofDescending rows: [ViewRow]) -> [ViewRow] {
        var ordered: [ViewRow] = []
        var run: [ViewRow] = []
        for row in rows.reversed() {
            if let first = run.first, first.key != row.key || first.id != row.id {
                ordered += run.reversed()
                run.removeAll()
            }
            run.append(row)
        }
        return ordered + run.reversed()
    }
}
