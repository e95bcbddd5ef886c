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
}
