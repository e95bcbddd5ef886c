import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("JSON indexes: definitions, upkeep and planning")
struct IndexTests {
    func people() async throws -> TemporaryStore {
        let temp = try TemporaryStore()
        let rows: [JSONValue] = [
            ["_id": "ada", "name": "Ada", "age": 36, "city": "London"],
            ["_id": "bob", "name": "Bob", "age": 20, "city": "Leeds"],
            ["_id": "cy", "name": "Cy", "age": 20, "city": "London"],
            ["_id": "dee", "name": "Dee"],
            ["_id": "eve", "name": "Eve", "age": "unknown", "city": "York"],
        ]
        _ = try await temp.store.bulkDocs(rows)
        return temp
    }

    func find(_ store: DocumentStore, _ body: String) async throws -> FindResult {
        try await store.find(FindRequest(JSONValue(parsing: body)))
    }

    func ids(_ result: FindResult) -> [String] { result.docs.compactMap { $0["_id"]?.stringValue } }

    @Test func creatingAnIndexWritesAQueryDesignDocumentAndTheSameIndexTwiceExists() async throws {
        let temp = try await people()
        let request = try JSONValue(parsing: #"{"index":{"fields":["age"]},"type":"json"}"#)
        let first = try await temp.store.createIndex(IndexDefinition(indexRequest: request))
        #expect(first.result == .created)
        #expect(first.name.count == 40 && first.id == "_design/" + first.name)  // hex SHA-1 names
        let second = try await temp.store.createIndex(IndexDefinition(indexRequest: request))
        #expect(second.result == .exists && second.id == first.id)
        let ddoc = try await (temp.store.document(id: first.id))
        #expect(ddoc["language"] == "query")
        #expect(ddoc["views"]?[first.name]?["map"]?["fields"] == ["age": "asc"])
        let listing = try await temp.store.indexListingJSON()
        #expect(listing["total_rows"] == 2)
        #expect(listing["indexes"]?.arrayValue?.first?["name"] == "_all_docs")
        #expect(listing["indexes"]?.arrayValue?.last?["def"] == ["fields": [["age": "asc"]]])
    }

    @Test func invalidDefinitionsAreTypedErrors() async throws {
        for (body, name) in [
            (#"{"fields":["a"]}"#, "missing_required_key"),
            (#"{"index":{"fields":[]}}"#, "invalid_index_fields_definition"),
            (#"{"index":{"fields":"a"}}"#, "invalid_sort_json"),
            (#"{"index":{"fields":[{"a":"up"}]}}"#, "invalid_sort_field"),
            (#"{"index":{"fields":[{"a":"asc"},{"b":"desc"}]}}"#, "unsupported_mixed_sort"),
            (#"{"index":{"fields":["a..b"]}}"#, "invalid_field_name"),
            (#"{"index":{"fields":["a"],"partial_filter_selector":{"a":{"$bad":1}}}}"#, "invalid_operator"),
            (#"{"index":{"fields":["a"],"partial_filter_selector":5}}"#, "invalid_selector_json"),
            (#"{"index":{"fields":["a"],"selector":{"a":1}}}"#, "invalid_key"),
            (#"{"index":{"fields":["a"]},"partial_filter_selector":{"a":1}}"#, "invalid_key"),
            (#"{"index":{"fields":["a"]},"name":""}"#, "invalid_empty_string"),
            (#"{"index":{"fields":["a"]},"ddoc":5}"#, "invalid_string"),
            (#"{"index":{"fields":["a"]},"w":0}"#, "invalid_pos_integer"),
            (#"{"index":{"fields":["a"]},"type":"nouveau"}"#, "invalid_index"),
            (#"{"index":{},"type":"text","analyzer":"klingon"}"#, "index_not_implemented"),
        ] {
            let error = #expect(throws: CloudantError.self) { try IndexDefinition(indexRequest: JSONValue(parsing: body)) }
            #expect(error?.queryErrorKind?.rawValue == name, "\(body)")
        }
    }

    @Test func anIndexIsKeptUpToDateByEveryKindOfWrite() async throws {
        let temp = try await people()
        try await temp.store.createIndex(IndexDefinition(name: "by-age", fields: [.ascending("age")]))
        let query = #"{"selector":{"age":{"$gte":20}},"use_index":"by-age","execution_stats":true}"#
        #expect(ids(try await find(temp.store, query)) == ["bob", "cy", "ada", "eve"])

        // Update, delete, insert.
        let ada = try await (temp.store.document(id: "ada"))
        try await temp.store.put(["_id": "ada", "_rev": .string(ada.rev ?? ""), "name": "Ada", "age": 19])
        let bob = try await (temp.store.document(id: "bob"))
        try await temp.store.delete(id: "bob", rev: bob.rev ?? "")
        try await temp.store.put(["_id": "fay", "age": 50])
        // A replicated revision that wins the conflict changes what is indexed.
        let cy = try await (temp.store.document(id: "cy"))
        _ = try await temp.store.bulkDocs(
            [["_id": "cy", "_rev": "9-ffffffffffffffffffffffffffffffff", "age": 99]], newEdits: false)
        #expect(try await temp.store.document(id: "cy")["age"] == 99)
        let result = try await find(temp.store, query)
        #expect(ids(result) == ["fay", "cy", "eve"])
        #expect(result.executionStats?.totalKeysExamined == 3)
        // Purging the winning branch brings the old winner back into the index.
        try await temp.store.purge(["cy": ["9-ffffffffffffffffffffffffffffffff"]])
        #expect(try await temp.store.document(id: "cy").rev == cy.rev)
        #expect(ids(try await find(temp.store, query)) == ["cy", "fay", "eve"])
    }

    @Test func indexesSurviveReopeningAndDeletingTheDesignDocumentDropsThem() async throws {
        let temp = try await people()
        try await temp.store.createIndex(IndexDefinition(name: "by-city", fields: [.ascending("city")]))
        let reopened = try temp.reopen()
        #expect(try await reopened.indexes().map(\.name) == ["by-city"])
        let plan = try await reopened.explain(FindRequest(JSONValue(parsing: #"{"selector":{"city":"London"}}"#)))
        #expect(plan["index"]?["name"] == "by-city")
        let ddoc = try await (reopened.document(id: "_design/by-city"))
        try await reopened.delete(id: "_design/by-city", rev: ddoc.rev ?? "")
        #expect(try await reopened.indexes().isEmpty)
    }

    @Test func deleteIndexRemovesItAndAnUnknownIndexIs404() async throws {
        let temp = try await people()
        try await temp.store.createIndex(IndexDefinition(name: "a", designDocument: "shared", fields: [.ascending("age")]))
        try await temp.store.createIndex(IndexDefinition(name: "b", designDocument: "shared", fields: [.ascending("city")]))
        try await temp.store.deleteIndex(designDocument: "_design/shared", name: "a")
        #expect(try await temp.store.indexes().map(\.name) == ["b"])
        #expect(try await temp.store.document(id: "_design/shared")["views"]?["b"] != nil)  // still declares b
        try await temp.store.deleteIndex(designDocument: "shared", name: "b")
        await #expect(throws: CloudantError.self) { try await temp.store.document(id: "_design/shared") }
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.deleteIndex(designDocument: "shared", name: "b")
        }
        #expect(error?.category == .notFound)
    }

    @Test func aReplicatedQueryDesignDocumentBuildsItsIndexes() async throws {
        let temp = try await people()
        let ddoc = try JSONValue(
            parsing: #"""
                {"_id":"_design/remote","_rev":"1-abcabcabcabcabcabcabcabcabcabcab","language":"query",
                 "views":{"by-name":{"map":{"fields":{"name":"asc"},"partial_filter_selector":{}},"reduce":"_count",
                 "options":{"def":{"fields":["name"]}}}}}
                """#)
        _ = try await temp.store.bulkDocs([ddoc], newEdits: false)
        #expect(try await temp.store.indexes().map(\.name) == ["by-name"])
        let result = try await find(temp.store, #"{"selector":{"name":{"$gt":"B"}},"execution_stats":true}"#)
        #expect(ids(result) == ["bob", "cy", "dee", "eve"])
        #expect(result.executionStats?.totalKeysExamined == 4)
    }

    @Test func theIndexRequiredByTheSelectorWinsAndOthersSayWhy() async throws {
        let temp = try await people()
        try await temp.store.createIndex(IndexDefinition(name: "by-age", fields: [.ascending("age")]))
        try await temp.store.createIndex(IndexDefinition(name: "by-city-age", fields: [.ascending("city"), .ascending("age")]))
        try await temp.store.createIndex(IndexDefinition(name: "by-name", fields: [.ascending("name")]))
        let plan = try await temp.store.explain(FindRequest(JSONValue(parsing: #"{"selector":{"age":20,"city":"London"}}"#)))
        #expect(plan["index"]?["name"] == "by-city-age")
        let reasons = plan["index_candidates"]?.arrayValue?.map { ($0["index"]?["name"], $0["analysis"]?["reasons"]) }
        #expect(reasons?.contains { $0.0 == "by-age" && $0.1 == [["name": "less_overlap"]] } == true)
        #expect(reasons?.contains { $0.0 == "by-name" && $0.1 == [["name": "field_mismatch"]] } == true)
        #expect(reasons?.contains { $0.0 == "_all_docs" && $0.1 == [["name": "unfavored_type"]] } == true)
        // A field required only in some branches of an $or does not make an index usable.
        let orPlan = try await temp.store.explain(FindRequest(JSONValue(parsing: #"{"selector":{"$or":[{"age":20},{"name":"Dee"}]}}"#)))
        #expect(orPlan["index"]?["name"] == "_all_docs")
        let result = try await find(temp.store, #"{"selector":{"$or":[{"age":20},{"name":"Dee"}]}}"#)
        #expect(ids(result) == ["bob", "cy", "dee"])
    }

    @Test func bothBoundsOfARangeBesideAnEqualityNarrowTheIndex() async throws {
        let temp = try await people()
        try await temp.store.createIndex(IndexDefinition(name: "by-city-age", fields: [.ascending("city"), .ascending("age")]))
        let body = #"{"selector":{"city":"London","age":{"$gte":20,"$lt":36}},"execution_stats":true}"#
        let plan = try await temp.store.explain(FindRequest(JSONValue(parsing: body)))
        #expect(plan["index"]?["name"] == "by-city-age")
        #expect(plan["mrargs"]?["start_key"] == ["London", 20])
        #expect(plan["mrargs"]?["end_key"] == ["London", 36, "<MAX>"])
        let result = try await find(temp.store, body)
        #expect(ids(result) == ["cy"])
        // CouchDB's view range ends inclusively at ["London", 36, <MAX>]: Ada (36) is read and rejected.
        #expect(result.executionStats?.totalKeysExamined == 2)
        #expect(result.executionStats?.totalDocsExamined == 2)
    }

    @Test func partialIndexesAreUsedOnlyWhenNamed() async throws {
        let temp = try await people()
        try await temp.store.createIndex(
            IndexDefinition(name: "londoners", fields: [.ascending("age")], partialFilterSelector: ["city": "London"]))
        let auto = try await find(temp.store, #"{"selector":{"age":{"$gt":0}}}"#)
        #expect(ids(auto) == ["ada", "bob", "cy", "eve"])  // "unknown" collates after every number
        #expect(auto.warning?.contains("No matching index found") == true)
        let named = try await find(temp.store, #"{"selector":{"age":{"$gt":0}},"use_index":["londoners","londoners"]}"#)
        #expect(ids(named) == ["cy", "ada"])
        let fallback = try await find(temp.store, #"{"selector":{"name":"Ada"},"use_index":"nope"}"#)
        #expect(ids(fallback) == ["ada"] && fallback.warning?.contains("_design/nope was not used") == true)
        let error = await #expect(throws: CloudantError.self) {
            try await find(temp.store, #"{"selector":{"name":"Ada"},"use_index":"nope","allow_fallback":false}"#)
        }
        #expect(error?.queryErrorKind?.rawValue == "invalid_index")
    }

    @Test func aSortTheIndexServesStreamsAndStopsAfterThePage() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs((0..<300).map { ["_id": .string("d\($0)"), "n": .number(JSONNumber($0 % 100)), "kind": "x"] })
        try await temp.store.createIndex(IndexDefinition(name: "by-kind-n", fields: [.ascending("kind"), .ascending("n")]))
        let result = try await find(
            temp.store, #"{"selector":{"kind":"x","n":{"$gte":10}},"sort":[{"n":"desc"}],"limit":4,"execution_stats":true}"#)
        #expect(ids(result) == ["d99", "d299", "d199", "d98"].sorted { _, _ in false })
        #expect(result.docs.map { $0["n"] } == [99, 99, 99, 98])
        // As CouchDB, the scan reads one match past the page before it stops.
        #expect(result.executionStats?.totalKeysExamined == 5)
        #expect(result.executionStats?.totalDocsExamined == 5)
        #expect(result.warning == nil)
        // Ties on n come in descending _id order, as the index stores them.
        #expect(ids(result) == ["d99", "d299", "d199", "d98"])
    }

    @Test func bookmarksPageThroughAnIndexWithoutGapsOrRepeats() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs((0..<57).map { ["_id": .string("d\($0)"), "n": .number(JSONNumber($0 % 7))] })
        try await temp.store.createIndex(IndexDefinition(name: "by-n", fields: [.ascending("n")]))
        for body in [#"{"selector":{"n":{"$gte":0}},"limit":10}"#, #"{"selector":{"n":{"$gte":2}},"sort":[{"n":"desc"}],"limit":10}"#] {
            var request = try FindRequest(JSONValue(parsing: body))
            var seen: [String] = []
            while true {
                let page = try await temp.store.find(request)
                if page.docs.isEmpty { break }
                seen += ids(page)
                request.bookmark = page.bookmark
            }
            var all = request
            all.bookmark = nil
            all.limit = 1000
            #expect(seen == ids(try await temp.store.find(all)))
            #expect(Set(seen).count == seen.count)
        }
    }

    @Test func entityKindsGetTheIndexesTheyDeclareWhenTheStoreOpens() async throws {
        struct Medication: Codable, Identifiable, Sendable {
            var id: String
            var name: String
        }
        var registry = EntityRegistry()
        try registry.register(EntityKind(Medication.self, indexes: [IndexDefinition(name: "medication-name", fields: [.ascending("name")])]))
        let temp = try TemporaryStore(registry: registry)
        #expect(try await temp.store.indexes().map(\.name) == ["medication-name"])
        let reopened = try temp.reopen(registry: registry)
        #expect(try await reopened.indexes().count == 1)
    }
}
