import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Cloudant Query (_find) without indexes")
struct FindTests {
    func people() async throws -> TemporaryStore {
        let temp = try TemporaryStore()
        let rows: [JSONValue] = [
            ["_id": "ada", "name": "Ada", "age": 36, "tags": ["math", "engines"]],
            ["_id": "bob", "name": "Bob", "age": 20, "address": ["city": "Leeds"]],
            ["_id": "cy", "name": "Cy", "age": 20],
            ["_id": "dee", "name": "Dee"],
            ["_id": "_design/x", "language": "query"],
        ]
        _ = try await temp.store.bulkDocs(rows)
        return temp
    }

    func find(_ store: DocumentStore, _ body: String) async throws -> FindResult {
        try await store.find(FindRequest(JSONValue(parsing: body)))
    }

    @Test func matchesWithCouchDBSemanticsAndNeverReturnsDesignDocuments() async throws {
        let temp = try await people()
        let all = try await find(temp.store, #"{"selector":{}}"#)
        #expect(all.docs.map { $0["_id"] } == ["ada", "bob", "cy", "dee"])
        let adults = try await find(temp.store, #"{"selector":{"age":{"$gt":20}}}"#)
        #expect(adults.docs.map { $0["_id"] } == ["ada"])
        // $ne needs the field to exist: Dee has no age.
        let notTwenty = try await find(temp.store, #"{"selector":{"age":{"$ne":20}}}"#)
        #expect(notTwenty.docs.map { $0["_id"] } == ["ada"])
        let nested = try await find(temp.store, #"{"selector":{"address":{"city":"Leeds"}}}"#)
        #expect(nested.docs.map { $0["_id"] } == ["bob"])
        let inArray = try await find(temp.store, #"{"selector":{"tags":{"$in":["engines"]}}}"#)
        #expect(inArray.docs.map { $0["_id"] } == ["ada"])
    }

    @Test func sortWorksWithoutAnIndexAndLeavesOutDocumentsMissingTheField() async throws {
        let temp = try await people()
        let ascending = try await find(temp.store, #"{"selector":{},"sort":["age"]}"#)
        #expect(ascending.docs.map { $0["_id"] } == ["bob", "cy", "ada"])
        let descending = try await find(temp.store, #"{"selector":{},"sort":[{"age":"desc"}]}"#)
        #expect(descending.docs.map { $0["_id"] } == ["ada", "cy", "bob"])
    }

    @Test func limitSkipAndBookmarksPageThroughResults() async throws {
        let temp = try await people()
        let first = try await find(temp.store, #"{"selector":{},"sort":["name"],"limit":2}"#)
        #expect(first.docs.map { $0["_id"] } == ["ada", "bob"])
        var request = try FindRequest(JSONValue(parsing: #"{"selector":{},"sort":["name"],"limit":2}"#))
        request.bookmark = first.bookmark
        let second = try await temp.store.find(request)
        #expect(second.docs.map { $0["_id"] } == ["cy", "dee"])
        request.bookmark = second.bookmark
        let empty = try await temp.store.find(request)
        #expect(empty.docs.isEmpty)
        #expect(empty.bookmark == second.bookmark)
        let skipped = try await find(temp.store, #"{"selector":{},"skip":3}"#)
        #expect(skipped.docs.map { $0["_id"] } == ["dee"])
    }

    @Test func fieldsProjectNestedPathsAndDoNotAddIdOrRev() async throws {
        let temp = try await people()
        let result = try await find(temp.store, #"{"selector":{"_id":"bob"},"fields":["name","address.city","nope"]}"#)
        #expect(result.docs == [["name": "Bob", "address": ["city": "Leeds"]]])
    }

    @Test func executionStatsAndTheNoIndexWarningAreReported() async throws {
        let temp = try await people()
        let result = try await find(temp.store, #"{"selector":{"age":20},"execution_stats":true}"#)
        // As CouchDB counts them: every row of _all_docs, the design document included, is read.
        #expect(result.executionStats?.totalKeysExamined == 5)
        #expect(result.executionStats?.totalDocsExamined == 5)
        #expect(result.executionStats?.resultsReturned == 2)
        #expect(result.warning?.contains("No matching index found") == true)
        let byID = try await find(temp.store, #"{"selector":{"_id":{"$gt":"b"}},"execution_stats":true}"#)
        #expect(byID.executionStats?.totalDocsExamined == 3)
        // _all_docs answered it (narrowed to the _id range), so CouchDB's warning still applies.
        #expect(byID.warning?.contains("No matching index found") == true)
    }

    @Test func theTopLevelEmptyOrReturnsNothing() async throws {
        let temp = try await people()
        #expect(try await find(temp.store, #"{"selector":{"$or":[]}}"#).docs.isEmpty)
        #expect(try await find(temp.store, #"{"selector":{"age":20,"$or":[]}}"#).docs.count == 2)
    }

    @Test(arguments: [
        (#"{"selector":{"a":{"$bad":1}}}"#, "invalid_operator"),
        (#"{"selector":{"a":{"$in":5}}}"#, "bad_arg"),
        (#"{"limit":1}"#, "missing_required_key"),
        (#"{"selector":{},"wat":1}"#, "invalid_key"),
        (#"{"selector":{},"sort":["a",{"b":"desc"}]}"#, "unsupported_mixed_sort"),
        (#"{"selector":{},"sort":[{"b":"up"}]}"#, "invalid_sort_field"),
        (#"{"selector":{},"sort":"a"}"#, "invalid_sort_json"),
        (#"{"selector":{},"fields":"a"}"#, "invalid_fields"),
        (#"{"selector":{},"fields":[1]}"#, "invalid_field"),
        (#"{"selector":{},"limit":-1}"#, "invalid_non_neg_integer"),
        (#"{"selector":{},"skip":"2"}"#, "invalid_non_neg_integer"),
        (#"{"selector":{},"r":0}"#, "invalid_pos_integer"),
        (#"{"selector":{},"conflicts":"x"}"#, "invalid_boolean"),
        (#"{"selector":{},"use_index":5}"#, "invalid_index_name"),
        (#"{"selector":{},"use_index":"a/b/c"}"#, "invalid_index_name"),
        (#"{"selector":{},"bookmark":5}"#, "invalid_bookmark"),
        (#"{"selector":{},"partition":"_p"}"#, "illegal_partition"),
        (#"{"selector":5}"#, "invalid_selector_json"),
    ])
    func invalidRequestsAreTypedErrorsWithCouchDBsNames(body: String, name: String) async throws {
        let error = #expect(throws: CloudantError.self) { try FindRequest(JSONValue(parsing: body)) }
        #expect(error?.queryErrorKind?.rawValue == name)
        #expect(error?.category == .invalidInput)
    }

    @Test func aForeignBookmarkIsInvalid() async throws {
        let temp = try await people()
        var request = FindRequest()
        request.bookmark = "not-a-bookmark"
        let error = await #expect(throws: CloudantError.self) { try await temp.store.find(request) }
        #expect(error?.queryErrorKind?.rawValue == "invalid_bookmark")
    }

    @Test func explainNamesTheIndexTheNormalisedSelectorAndTheIDRange() async throws {
        let temp = try await people()
        let request = try FindRequest(JSONValue(parsing: #"{"selector":{"_id":{"$gte":"b"},"age":{"$not":{"$lt":20}}},"sort":["age"]}"#))
        let plan = try await temp.store.explain(request)
        // No index serves the sort: CouchDB's answer (no index), then what this store does instead.
        #expect(plan["index"] == .some(.null))
        #expect(plan["sorted_in_memory"]?["index"]?["name"] == "_all_docs")
        #expect(plan["sorted_in_memory"]?["mrargs"]?["start_key"] == "b")
        #expect(plan["sorted_in_memory"]?["mrargs"]?["end_key"] == "<MAX>")
        #expect(plan["selector"]?["$and"]?.arrayValue?.contains(["age": ["$gte": 20]]) == true)
    }
}
