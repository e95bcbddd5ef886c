import CloudantCore
import Testing

@Suite("Index ranges and view keys, as CouchDB's mango_idx_view computes them")
struct IndexRangeTests {
    func root(_ json: JSONValue) throws -> MangoSelector.Node { try MangoSelector(json).root }

    @Test func conditionsOnAFieldNarrowOneInterval() throws {
        let range = IndexRange.of(try root(["age": ["$gt": 5, "$lte": 9]]), field: "age")
        #expect(range == .range(lower: .gt(.json(5)), upper: .lte(.json(9))))
        #expect(IndexRange.of(try root(["age": ["$gte": 5, "$lte": 5]]), field: "age") == .range(lower: .eq(.json(5)), upper: .eq(.json(5))))
        #expect(IndexRange.of(try root(["age": ["$gt": 5, "$lt": 5]]), field: "age") == .empty)
        #expect(IndexRange.of(try root(["age": ["$eq": 5, "$gt": 7]]), field: "age") == .empty)
        // Other operators, and conditions under $or, leave the range alone.
        #expect(IndexRange.of(try root(["age": ["$in": [1, 2]]]), field: "age") == .all)
        #expect(IndexRange.of(try root(["$or": [["age": 1], ["age": 2]]]), field: "age") == .all)
    }

    @Test func theFirstEmptyFieldEndsTheFieldRangesAlone() throws {
        let ranges = IndexRange.fieldRanges(try root(["a": 1, "b": ["$gt": 3, "$lt": 2], "c": 1]))
        #expect(ranges.map(\.field) == ["b"])
        #expect(ranges.first?.range == .empty)
        // Fields come in byte order, as CouchDB's lists:usort sorts them.
        #expect(IndexRange.fieldRanges(try root(["b": 1, "B": 1, "a": 1])).map(\.field) == ["B", "a", "b"])
    }

    @Test func viewKeysStopAtTheFirstUnboundedColumnAndEndWithMax() throws {
        let node = try root(["age": 10, "name": ["$gte": 0]])
        let ranges = ["age", "name"].map { IndexRange.of(node, field: $0) }
        #expect(IndexRange.startKey(ranges).map(\.json) == [10, 0])
        #expect(IndexRange.endKey(ranges).map(\.json) == [10, "<MAX>"])
        let open = [IndexRange.of(try root(["age": ["$gt": 0]]), field: "age")]
        #expect(IndexRange.startKey(open).map(\.json) == [0])
        #expect(IndexRange.endKey(open).map(\.json) == ["<MAX>"])
    }

    @Test func beginsWithEndsAtThePrefixFollowedByUFFFF() throws {
        let ranges = [IndexRange.of(try root(["location": ["$beginsWith": "A"]]), field: "location")]
        #expect(IndexRange.startKey(ranges).map(\.json) == ["A"])
        #expect(IndexRange.endKey(ranges).map(\.json) == [.string("A\u{FFFF}"), "<MAX>"])
    }
}
