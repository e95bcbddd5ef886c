import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Reduce views (couch_mrview red_fold)")
struct ReduceViewTests {
    let ddoc: JSONValue = [
        "_id": "_design/r", "language": "javascript",
        "views": [
            "count": ["map": "function(doc) { emit(doc.date, 1); }", "reduce": "_count"],
            "sum": ["map": "function(doc) { emit(doc.date, doc.v); }", "reduce": "_sum"],
            "stats": ["map": "function(doc) { emit(doc.date, doc.v); }", "reduce": "_stats"],
            "js": ["map": "function(doc) { emit(doc.date, doc.v); }", "reduce": "function(k, v, rereduce) { return sum(v); }"],
            "shape": ["map": "function(doc) { emit(doc.date, doc.v); }", "reduce": "function(k, v, rereduce) { return rereduce ? 'rereduced' : 'reduced'; }"],
            "big": [
                "map": "function(doc) { emit(doc.date, doc.v); }",
                "reduce": "function(keys, values) { var c = []; for (var i = 0; i < 1000; i++) c.push('wazzap'); return c; }",
            ],
        ],
    ]

    func filled() async throws -> TemporaryStore {
        let temp = try viewStore()
        try await temp.store.put(try #require(ddoc.objectValue))
        let dates: [[JSONValue]] = [[2024, 1, 1], [2024, 1, 2], [2024, 1, 2], [2024, 2, 1], [2025, 1, 1]]
        try await temp.store.write(dates.enumerated().map { ["_id": .string("d\($0.offset)"), "date": .array($0.element), "v": .number(JSONNumber($0.offset + 1))] })
        return temp
    }

    @Test func withoutGroupingOneRowHasTheWholeRange() async throws {
        let temp = try await filled()
        let all = try await temp.store.queryView(designDocument: "r", view: "sum")
        #expect(all.rows == [ViewRow(id: nil, key: .null, value: 15)])
        #expect(all.totalRows == nil && all.offset == nil)
        #expect(all.json == ["rows": [["key": .null, "value": 15]]])
    }

    @Test func groupLevelGroupsByLeadingElements() async throws {
        let temp = try await filled()
        let years = try await temp.store.queryView(designDocument: "r", view: "count", query: .parameters(("group_level", "1")))
        #expect(years.rows.map(\.key) == [[2024], [2025]])
        #expect(years.values == [4, 1])
        let months = try await temp.store.queryView(designDocument: "r", view: "sum", query: .parameters(("group_level", "2")))
        #expect(months.keys == [[2024, 1], [2024, 2], [2025, 1]])
        #expect(months.values == [6, 4, 5])
        let exact = try await temp.store.queryView(designDocument: "r", view: "count", query: .parameters(("group", "true")))
        #expect(exact.values == [1, 2, 1, 1])
    }

    @Test func descendingGroupsAreTheAscendingOnesReversed() async throws {
        let temp = try await filled()
        let up = try await temp.store.queryView(designDocument: "r", view: "sum", query: .parameters(("group_level", "2")))
        let down = try await temp.store.queryView(
            designDocument: "r", view: "sum", query: .parameters(("group_level", "2"), ("descending", "true")))
        #expect(down.keys == up.keys.reversed())
        #expect(down.values == up.values.reversed())
        let firstUp = try await temp.store.queryView(designDocument: "r", view: "stats", query: .parameters(("group_level", "1")))
        let firstDown = try await temp.store.queryView(
            designDocument: "r", view: "stats", query: .parameters(("group_level", "1"), ("descending", "true")))
        #expect(firstDown.values == firstUp.values.reversed())
    }

    @Test func skipAndLimitCountGroups() async throws {
        let temp = try await filled()
        let page = try await temp.store.queryView(
            designDocument: "r", view: "count", query: .parameters(("group", "true"), ("skip", "1"), ("limit", "2")))
        #expect(page.keys == [[2024, 1, 2], [2024, 2, 1]])
    }

    @Test func reduceFalseReadsTheMapRows() async throws {
        let temp = try await filled()
        let rows = try await temp.store.queryView(designDocument: "r", view: "sum", query: .parameters(("reduce", "false")))
        #expect(rows.totalRows == 5 && rows.rows.count == 5 && rows.rows[0].id == "d0")
    }

    @Test func statsAndJavaScriptReduces() async throws {
        let temp = try await filled()
        let stats = try await temp.store.queryView(designDocument: "r", view: "stats")
        #expect(stats.values == [["sum": 15, "count": 5, "min": 1, "max": 5, "sumsqr": 55]])
        let js = try await temp.store.queryView(designDocument: "r", view: "js", query: .parameters(("group_level", "1")))
        #expect(js.values == [10, 5])
    }

    @Test func theLastStepIsAlwaysARereduceAsCouchDBsCoordinatorDoes() async throws {
        let temp = try await filled()
        #expect(try await temp.store.queryView(designDocument: "r", view: "shape").values == ["rereduced"])
    }

    @Test func aReductionThatDoesNotShrinkIsAnErrorRow() async throws {
        let temp = try await filled()
        let rows = try await temp.store.queryView(designDocument: "r", view: "big")
        #expect(rows.rows.count == 1)
        #expect(rows.rows[0].error == "reduce_overflow_error")
        #expect(rows.rows[0].json["key"] == .null)
    }

    @Test func keysOfAReduceViewNeedGroup() async throws {
        let temp = try await filled()
        await #expect(throws: CloudantError.self) {
            try await temp.store.queryView(designDocument: "r", view: "count", query: .parameters(("keys", "[[2024,1,2],[2025,1,1]]")))
        }
        let keyed = try await temp.store.queryView(
            designDocument: "r", view: "count", query: .parameters(("keys", "[[2024,1,2],[2025,1,1]]"), ("group", "true")))
        #expect(keyed.values == [2, 1])
    }

    /// Keys of every shape at once: arrays shorter and longer than the level, equal under collation but
    /// written differently (`1` and `1.0`), and keys that are no arrays. Each grouping must give what grouping
    /// the map rows by hand gives: consecutive rows whose group keys collate equal, keyed by the first one's.
    /// (`group_level=0` is no grouping at all, one row for the whole range, as `couch_mrview` reads it.)
    @Test(arguments: [0, 1, 2, 3])
    func groupsOfKeysOfEveryShapeAreTheMapRowsGroupedByHand(level: Int) async throws {
        let temp = try viewStore()
        try await temp.store.put([
            "_id": "_design/g", "views": ["sum": ["map": "function(doc) { emit(doc.k, doc.v); }", "reduce": "_sum"]],
        ])
        let keys: [JSONValue] = [
            [], [1], [1.0], [1, 2], [1.0, 2, 3], [1, 2, 3], [1, 2, 3, 4], [1, 3], [1, "a"], [1, "a", 1], [1, "ab"], [2],
            ["a"], ["a", ["b"]], ["a", ["b"], 1], ["a", ["b", 1]], ["a", ["c"]], "a", "ab", 1, 1.0, 2, .null, true, ["k": 1],
            [["x"]], [["x"], 1], [["x", "y"]],
        ]
        try await temp.store.write(keys.enumerated().map { ["_id": .string("d\($0.offset)"), "k": $0.element, "v": .number(JSONNumber($0.offset + 1))] })
        let rows = try await temp.store.queryView(designDocument: "g", view: "sum", query: .parameters(("reduce", "false"))).rows
        func groupKey(_ key: JSONValue) -> JSONValue {
            guard case .array(let elements) = key else { return key }
            return .array(Array(elements.prefix(level)))
        }
        var expected: [(key: JSONValue, sum: Int64)] = []
        if level == 0 { expected = [(.null, 0)] }
        for row in rows where level == 0 {
            expected[0].sum += row.value.numberValue?.int64Value ?? 0
        }
        for row in rows where level > 0 {
            let key = groupKey(row.key)
            let value = row.value.numberValue?.int64Value ?? 0
            if let last = expected.last, Collation.compare(last.key, key) == 0 {
                expected[expected.count - 1].sum += value
            } else {
                expected.append((key, value))
            }
        }
        let grouped = try await temp.store.queryView(designDocument: "g", view: "sum", query: .parameters(("group_level", String(level))))
        #expect(grouped.keys == expected.map(\.key))
        #expect(grouped.values == expected.map { .number(JSONNumber($0.sum)) })
        let descending = try await temp.store.queryView(
            designDocument: "g", view: "sum", query: .parameters(("group_level", String(level)), ("descending", "true")))
        #expect(descending.values == grouped.values.reversed())
    }
}

