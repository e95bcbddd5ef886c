import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// `_top_N`, `_bottom_N`, `_first`, `_last` and `_approx_count_distinct` keep stored reduction blocks too. The
/// reference folds, in the test, the rows the same query reads with `reduce=false` through the built-in's own
/// accumulator: the reduce CouchDB defines, row by row. The first four choose between tied rows by their order,
/// so only ascending queries read their blocks; `_approx_count_distinct`'s sketch is read either way.
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

    @Test func anAscendingQueryTakesTheStoredPartialsAndADescendingOneReadsTheRowsWhereOrderDecides() async throws {
        let temp = try await Self.store(seed: 13)
        let last = Self.view(.last)
        let truth = try #require(try await temp.store.queryView(last).rows.first?.value)
        // Every block now claims a row past every real key (an object collates after arrays and strings).
        #expect(try ReductionBlockTables.tamper(temp, set: #"'[{"z":1},"zz","stored"]'"#) > 1)
        let ascending = try await temp.store.queryView(last, query: .parameters(("update", "false")))
        #expect(ascending.rows.first?.value == "stored")
        let descending = try await temp.store.queryView(last, query: .parameters(("update", "false"), ("descending", "true")))
        #expect(descending.rows.first?.value == truth)
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
            #expect(answer == expected, "\(view.name) \(parameters) (CLOUDANT_TEST_SEED=\(seed))", sourceLocation: sourceLocation)
            let page = try await temp.store.queryView(view, query: ViewQuery(parameters: parameters + [("skip", "2"), ("limit", "3")]))
            #expect(page.rows.map { [$0.key, $0.value] } == Array(expected.dropFirst(2).prefix(3)), sourceLocation: sourceLocation)
        }
    }

    /// Groups of consecutive rows with one group key, each keyed by its first row's and reduced row by row in
    /// the order read (the test's keys hold rows of one key each, so a group never spans two of them).
    private static func fold(_ rows: [ViewRow], _ function: BuiltInReduce, grouping parameters: [(String, String)]) throws -> [[JSONValue]] {
        var groups: [(key: JSONValue, accumulator: ReduceAccumulator)] = []
        for row in rows {
            let key = ReductionBlockTests.groupKey(row.key, grouping: parameters)
            if groups.last?.key != key { groups.append((key, function.accumulator())) }
            groups[groups.count - 1].accumulator.add(key: row.key, id: row.id ?? "", value: row.value)
        }
        return try groups.map { [$0.key, try $0.accumulator.result()] }
    }
}
