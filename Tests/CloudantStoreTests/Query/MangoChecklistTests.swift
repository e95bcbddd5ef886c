import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

/// Mango's edge cases as CouchDB answers them (missing fields, collation across types, whole-value `$eq`, `$in` on
/// arrays, empty `$or`, `_id` by bytes…), each run through `_find` twice: on `_all_docs` and on a JSON index over
/// the field, which must agree.
@Suite("Mango edge-case checklist")
struct MangoChecklistTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var item: String
        var selector: String
        var expected: [String]
        var sort: String = "[]"
        var testDescription: String { item }
    }

    static let documents: [JSONValue] = [
        ["_id": "null", "v": nil], ["_id": "false", "v": false], ["_id": "true", "v": true], ["_id": "nine", "v": 9],
        ["_id": "big", "v": 10000], ["_id": "a", "v": "a"], ["_id": "A", "v": "A"], ["_id": "aa", "v": "aa"],
        ["_id": "arr", "v": ["x", "y"]], ["_id": "arr1", "v": [["x", "y"]]], ["_id": "obj", "v": ["p": 1, "q": 2]],
        ["_id": "missing", "w": 1], ["_id": "float", "v": .number(.double(4.0))], ["_id": "int4", "v": 4],
    ]

    static let cases: [Case] = [
        Case(item: "missing fields fail all but $exists:false", selector: #"{"v":{"$exists":false}}"#, expected: ["missing"]),
        Case(item: "$ne needs presence", selector: #"{"v":{"$ne":"a"},"w":{"$exists":false}}"#,
            expected: ["A", "aa", "arr", "arr1", "big", "false", "float", "int4", "nine", "null", "obj", "true"]),
        Case(item: "{$lt:1} matches null, false, true", selector: #"{"v":{"$lt":1}}"#, expected: ["false", "null", "true"]),
        Case(item: "{$lte:\"a\"} selects null…\"a\"", selector: #"{"v":{"$lte":"a"}}"#,
            expected: ["a", "big", "false", "float", "int4", "nine", "null", "true"]),
        Case(item: "{$gte:\"a\"} selects strings and containers", selector: #"{"v":{"$gte":"a"}}"#,
            expected: ["A", "a", "aa", "arr", "arr1", "obj"]),
        Case(item: "$eq on arrays is whole-value", selector: #"{"v":{"$eq":["x","y"]}}"#, expected: ["arr"]),
        Case(item: "$eq on objects minds key order", selector: #"{"v":{"$eq":{"q":2,"p":1}}}"#, expected: []),
        Case(item: "$eq on objects in stored order", selector: #"{"v":{"$eq":{"p":1,"q":2}}}"#, expected: ["obj"]),
        Case(item: "$in on array fields matches any element", selector: #"{"v":{"$in":["y"]}}"#, expected: ["arr"]),
        Case(item: "$in:[] never matches", selector: #"{"v":{"$in":[]}}"#, expected: []),
        Case(item: "$all:[[x,y]] also matches the array itself", selector: #"{"v":{"$all":[["x","y"]]}}"#, expected: ["arr", "arr1"]),
        Case(item: "$mod needs an integer (4.0 is a float)", selector: #"{"v":{"$mod":[2,0]}}"#, expected: ["big", "int4"]),
        Case(item: "== 1.0 in collation", selector: #"{"v":4}"#, expected: ["float", "int4"]),
        Case(item: "a sort with no index still sorts (better than no_usable_index)", selector: #"{"v":{"$type":"string"}}"#,
            expected: ["a", "A", "aa"], sort: #"["v"]"#),
        Case(item: "top-level {$or:[]} returns nothing", selector: #"{"$or":[]}"#, expected: []),
        Case(item: "{$or:[]} inside a selector is vacuous", selector: #"{"v":"a","$or":[]}"#, expected: ["a"]),
        Case(item: "_id compares by bytes", selector: #"{"_id":{"$lt":"a"}}"#, expected: ["A"]),
    ]

    @Test(arguments: cases)
    func checklistItemHoldsWithAndWithoutAnIndex(_ check: Case) async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs(Self.documents)
        let body = try JSONValue(parsing: #"{"selector":\#(check.selector),"sort":\#(check.sort),"limit":100}"#)
        let unindexed = try await temp.store.find(FindRequest(body)).docs.compactMap { $0["_id"]?.stringValue }
        try await temp.store.createIndex(IndexDefinition(name: "by-v", fields: [.ascending("v")]))
        var indexedRequest = try FindRequest(body)
        indexedRequest.useIndex = ["by-v"]
        let indexed = try await temp.store.find(indexedRequest).docs.compactMap { $0["_id"]?.stringValue }
        if check.sort == "[]" {
            #expect(unindexed.sorted() == check.expected.sorted())
            #expect(indexed.sorted() == check.expected.sorted())
        } else {
            #expect(unindexed == check.expected)
            #expect(indexed == check.expected)
        }
    }

    @Test func twentyJSONIndexesSkipDocumentsLackingTheFieldAndFieldsNeverAddIDOrRev() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs(Self.documents)
        try await temp.store.createIndex(IndexDefinition(name: "by-v", fields: [.ascending("v")]))
        let result = try await temp.store.find(
            FindRequest(JSONValue(parsing: #"{"selector":{"v":{"$gte":null}},"fields":["v"],"limit":100,"execution_stats":true}"#)))
        #expect(result.executionStats?.totalKeysExamined == 13)  // every document but "missing"
        #expect(result.docs.allSatisfy { $0.keys == ["v"] })  // only the projected field
    }

    @Test func aBadRegexIsATypedErrorNamingTheOperator() async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.find(FindRequest(JSONValue(parsing: #"{"selector":{"v":{"$regex":"(unclosed"}}}"#)))
        }
        #expect(error?.queryErrorKind?.rawValue == "bad_arg")
        #expect(error?.context.field == "v")
    }
}
