import CloudantCore
import Testing

@Suite("Index choice, as CouchDB 3.5's planner makes it")
struct QueryPlannerTests {
    func index(_ ddoc: String, _ fields: [String], partial: JSONValue? = nil, partitioned: Bool? = nil) -> IndexDefinition {
        IndexDefinition(
            name: ddoc, designDocument: ddoc, fields: fields.map { .ascending($0) }, partialFilterSelector: partial,
            partitioned: partitioned)
    }

    func plan(_ body: JSONValue, _ indexes: [IndexDefinition], partitioned: Bool = false) throws -> QueryPlan {
        try QueryPlanner.plan(FindRequest(body), indexes: indexes, databaseIsPartitioned: partitioned)
    }

    @Test func theIndexCoveringMostIndexableFieldsThenFewestColumnsThenByNameWins() throws {
        let aaa = index("aaa", ["name", "age", "user_id"])
        let bbb = index("bbb", ["name", "age"])
        let zzz = index("zzz", ["name"])
        #expect(try plan(["selector": ["name": "Eddie"]], [aaa, zzz]).index == zzz)
        #expect(try plan(["selector": ["name": "Eddie", "age": ["$gte": 12]]], [aaa, bbb, zzz]).index == bbb)
        // `number` is not an indexed column of any: the shortest usable index wins.
        let inMemory = try plan(["selector": ["name": "Eddie", "number": ["$lte": 12]]], [index("a", ["name", "location"]), zzz])
        #expect(inMemory.index == zzz)
        let twins = [index("zzz", ["name"]), index("bbb", ["name"]), index("aaa", ["name"])]
        #expect(try plan(["selector": ["name": "Eddie"]], twins).index?.designDocument == "aaa")
    }

    @Test func anIndexIsUsableOnlyWhenTheSelectorRequiresItsFieldsButIdRevAndSortFields() throws {
        let companyManager = index("cm", ["company", "manager"])
        #expect(try plan(["selector": ["company": "Pharmex"]], [companyManager]).index == nil)
        #expect(try plan(["selector": ["company": "Pharmex", "manager": ["$exists": false]]], [companyManager]).index == nil)
        #expect(try plan(["selector": ["name": "Eddie"]], [index("aaa", ["name", "_id"])]).index?.name == "aaa")
        #expect(try plan(["selector": ["name": "Eddie"]], [index("aaa", ["name", "_rev"])]).index?.name == "aaa")
        // A field every branch of an $or requires counts; `{"$or": []}` requires every field, as in CouchDB.
        let orBranches: JSONValue = ["company": ["$gt": "a"], "$or": [["manager": "Foo"], ["manager": "Bar"]]]
        #expect(try plan(["selector": orBranches], [companyManager]).index == companyManager)
        let emptyOr = try plan(["selector": ["$or": []]], [companyManager])
        #expect(emptyOr.index == companyManager && emptyOr.isEmpty)
    }

    @Test func aSortIsServedByAnIndexWhoseColumnsBeforeItAreFixedByEquality() throws {
        let carsAge = index("cars-age", ["cars", "age"])
        let served = try plan(["selector": ["cars": "2", "age": ["$gt": 10]], "sort": ["age"]], [carsAge])
        #expect(served.index == carsAge && served.scanIsOrdered && served.unsortedFallbackReason == nil)
        let descending = try plan(["selector": ["cars": "2", "age": ["$gt": 10]], "sort": [["age": "desc"]]], [carsAge])
        #expect(descending.descending && descending.index == carsAge)
        // `cars` is a range, not a constant: no index serves the sort; this store sorts in memory.
        let unserved = try plan(["selector": ["cars": ["$gt": 10], "age": ["$gt": 10]], "sort": ["age"]], [carsAge])
        #expect(unserved.unsortedFallbackReason != nil && !unserved.scanIsOrdered && unserved.sortRefusal == nil)
        // _all_docs serves a sort on _id only with an indexable condition on _id.
        let byID = try plan(["selector": ["_id": ["$gt": 0], "age": ["$gt": 0]], "sort": ["_id"]], [index("age", ["age"])])
        #expect(byID.index == nil && byID.unsortedFallbackReason == nil)
    }

    @Test func aRequestAskingForCouchDBsRefusalGetsNoUsableIndexOnceTheDatabaseHasIndexes() throws {
        var request = try FindRequest(["selector": ["age": ["$gt": 0]], "sort": ["name"]])
        request.unservedSort = .refuseOnceIndexed
        #expect(try QueryPlanner.plan(request, indexes: []).sortRefusal == nil)
        let refusal = try QueryPlanner.plan(request, indexes: [index("age", ["age"])]).sortRefusal
        #expect(refusal?.queryErrorKind == .noUsableIndex)
        let partitioned = try QueryPlanner.plan(request, indexes: [index("age", ["age"])], databaseIsPartitioned: true)
        #expect(partitioned.sortRefusal?.message.hasPrefix("No global index exists") == true)
    }

    @Test func useIndexPicksAmongUsableIndexesAndFallsBackWithAWarningUnlessForbidden() throws {
        let baz = index("testsuboptimal", ["baz"])
        let bazBar = index("bazbar", ["baz", "bar"])
        let selector: JSONValue = ["baz": ["$gt": nil], "bar": ["$gt": nil]]
        let preferred = try plan(["selector": selector, "use_index": "testsuboptimal"], [baz, bazBar])
        #expect(preferred.index == baz && preferred.warnings.isEmpty)
        let missing = try plan(["selector": selector, "use_index": "_design/nope"], [baz, bazBar])
        #expect(missing.index == bazBar)
        #expect(missing.warnings.first == "_design/nope was not used because it does not contain a valid index for this query.")
        let named = try plan(["selector": selector, "use_index": ["nope", "x"]], [baz, bazBar])
        #expect(named.warnings.first == "_design/nope, x was not used because it is not a valid index for this query.")
        #expect(throws: CloudantError.self) {
            try plan(["selector": selector, "use_index": "nope", "allow_fallback": false], [baz, bazBar])
        }
        // Without use_index, allow_fallback false needs an index besides _all_docs.
        #expect(try plan(["selector": selector, "allow_fallback": false], [baz]).index == baz)
        #expect(throws: CloudantError.self) { try plan(["selector": ["x": 1], "allow_fallback": false], [baz]) }
        // Partial indexes are considered only when named.
        let partial = index("partial", ["age"], partial: ["type": "user"])
        #expect(try plan(["selector": ["age": ["$gt": 0]]], [partial]).index == nil)
        #expect(try plan(["selector": ["age": ["$gt": 0]], "use_index": "partial"], [partial]).index == partial)
    }

    @Test func candidatesCarryCouchDBsReasonsRankingsAndOrder() throws {
        let indexes = [index("user_id", ["user_id"]), index("age", ["age"]), index("twitter", ["twitter"])]
        let chosen = try plan(["selector": ["age": 23]], indexes)
        #expect(chosen.index?.name == "age")
        // Not usable: ranked after the unfavoured _all_docs; listed by design document, descending.
        #expect(chosen.candidates.map { $0.index?.name ?? "_all_docs" } == ["user_id", "twitter", "_all_docs"])
        #expect(chosen.candidates.map(\.reason) == ["field_mismatch", "field_mismatch", "unfavored_type"])
        #expect(chosen.candidates.map(\.ranking) == [2, 2, 1])
        #expect(chosen.candidates.map(\.usable) == [false, false, true])
        #expect(chosen.candidates.map(\.covering) == [false, false, nil])
        // Usable but beaten: less_overlap, then too_many_fields.
        let two = try plan(["selector": ["name": "x", "age": ["$gte": 1], "l": ["$regex": "^a"]]], [index("n", ["name"]), index("na", ["name", "age"]), index("nal", ["name", "age", "l"])])
        #expect(two.index?.name == "na")
        let reasons = Dictionary(uniqueKeysWithValues: two.candidates.compactMap { c in c.index.map { ($0.name, c.reason) } })
        #expect(reasons == ["n": "less_overlap", "nal": "too_many_fields"])
        // No usable index for the sort: _all_docs itself is not usable, ranked first.
        let none = try plan(["selector": ["age": 23], "sort": ["company"]], [])
        #expect(none.candidates.map(\.reason) == ["field_mismatch"] && none.candidates.first?.usable == false)
    }

    @Test func aPartitionQueryUsesPartitionedIndexesAndAGlobalQueryTheOthers() throws {
        let perPartition = index("p", ["x"])
        let global = index("g", ["x"], partitioned: false)
        let inPartition = try QueryPlanner.plan(
            FindRequest(["selector": ["x": ["$gt": 0]], "partition": "a"]), indexes: [perPartition, global],
            databaseIsPartitioned: true)
        #expect(inPartition.index == perPartition)
        #expect(inPartition.candidates.first { $0.index == global }?.reason == "scope_mismatch")
        let everywhere = try plan(["selector": ["x": ["$gt": 0]]], [perPartition, global], partitioned: true)
        #expect(everywhere.index == global)
        #expect(throws: CloudantError.self) {
            try QueryPlanner.plan(FindRequest(["selector": [:], "partition": "a"]), indexes: [])
        }
    }

    @Test func anIndexCoversAQueryWhenItHoldsEveryFieldReadAndId() throws {
        let companyManager = index("cm", ["company", "manager"])
        #expect(try plan(["selector": ["company": "Lyria", "manager": true], "fields": ["_id"]], [companyManager]).isCovering)
        #expect(try plan(["selector": ["company": ["$exists": true], "manager": true], "fields": ["company"]], [companyManager]).isCovering)
        #expect(try !plan(["selector": ["company": "Lyria", "manager": true]], [companyManager]).isCovering)
        #expect(try !plan(["selector": ["company": "Lyria", "manager": true, "age": 3], "fields": ["_id"]], [companyManager]).isCovering)
    }
}
