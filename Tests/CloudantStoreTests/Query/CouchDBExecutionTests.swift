import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("_find executed and explained as CouchDB 3.5: covering indexes, statistics, view keys")
struct CouchDBExecutionTests {
    func users() async throws -> TemporaryStore {
        let temp = try TemporaryStore()
        let rows = (0..<12).map { number -> JSONValue in
            let id = number < 10 ? "u0\(number)" : "u\(number)"
            let company = number % 2 == 0 ? "Acme" : "Lyria"
            let user: JSONObject = [
                "_id": .string(id), "age": .number(JSONNumber(20 + number)), "company": .string(company),
                "manager": .bool(number % 3 == 0),
            ]
            return .object(user)
        }
        _ = try await temp.store.bulkDocs(rows)
        try await temp.store.createIndex(IndexDefinition(name: "age", designDocument: "age", fields: [.ascending("age")]))
        try await temp.store.createIndex(
            IndexDefinition(name: "cm", designDocument: "cm", fields: [.ascending("company"), .ascending("manager")]))
        return temp
    }

    func find(_ store: DocumentStore, _ body: JSONValue) async throws -> FindResult {
        try await store.find(FindRequest(body))
    }

    @Test func aCoveringIndexAnswersWithoutReadingDocuments() async throws {
        let temp = try await users()
        let body: JSONValue = ["selector": ["age": ["$gte": 30]], "fields": ["_id", "age"], "execution_stats": true]
        let result = try await find(temp.store, body)
        #expect(result.docs == [["_id": "u10", "age": 30], ["_id": "u11", "age": 31]])
        #expect(result.executionStats?.totalKeysExamined == 2)
        #expect(result.executionStats?.totalDocsExamined == 0)
        let plan = try await temp.store.explain(FindRequest(body))
        #expect(plan["covering"] == true && plan["mrargs"]?["include_docs"] == false)
        // A field the index lacks means reading documents again.
        let wider = try await temp.store.explain(FindRequest(["selector": ["age": ["$gte": 30]], "fields": ["company"]]))
        #expect(wider["covering"] == false && wider["mrargs"]?["include_docs"] == true)
        let composite = try await find(
            temp.store, ["selector": ["company": ["$exists": true], "manager": true], "fields": ["company"], "sort": ["company"]])
        #expect(composite.docs == [["company": "Acme"], ["company": "Acme"], ["company": "Lyria"], ["company": "Lyria"]])
    }

    @Test func statisticsCountTheViewRangeUpToTheFirstMatchAfterThePage() async throws {
        let temp = try await users()
        // age <= 24: rows 20…24; the page is 3, so CouchDB reads a fourth row and stops.
        let limited = try await find(temp.store, ["selector": ["age": ["$lte": 24]], "limit": 3, "execution_stats": true])
        #expect(limited.executionStats?.totalKeysExamined == 4)
        #expect(limited.executionStats?.totalDocsExamined == 4)
        #expect(limited.executionStats?.resultsReturned == 3)
        // r above 1: CouchDB reads the documents at the coordinator instead. The view range ends at 23
        // inclusive, so that row is read too, and rejected.
        let quorum = try await find(temp.store, ["selector": ["age": ["$lt": 23]], "r": 3, "execution_stats": true])
        #expect(quorum.docs.count == 3)
        #expect(quorum.executionStats?.totalDocsExamined == 0)
        #expect(quorum.executionStats?.totalQuorumDocsExamined == 4)
        // _all_docs reads design documents too (two here), and CouchDB counts them.
        let scan = try await find(temp.store, ["selector": ["nope": 1], "execution_stats": true])
        #expect(scan.executionStats?.totalKeysExamined == 14)
        #expect(scan.executionStats?.totalDocsExamined == 14)
        #expect(scan.warning?.contains("The number of documents examined is high") == true)
    }

    /// The scan warning reads the same count without `execution_stats`, where conditions are checked in SQL and
    /// the rows they fail never reach the count: those rows are counted again, as CouchDB reads each of them.
    @Test func theScanWarningCountsEveryRowReadWithoutStatisticsToo() async throws {
        let temp = try await users()
        // Scans of `_all_docs` (14 rows with the two design documents) finding nothing.
        for selector: JSONValue in [["nope": 1], ["manager": "x"], ["company": ["$regex": "^Z"]]] {
            let withStatistics = try await find(temp.store, ["selector": selector, "execution_stats": true])
            let without = try await find(temp.store, ["selector": selector])
            #expect(without.warning == withStatistics.warning, "\(selector)")
            #expect(without.warning?.contains("The number of documents examined is high") == true, "\(selector)")
        }
        // A page that stops early counts the rows read up to its last document only: the design documents and
        // u00 here, not the 11 users after it.
        let page = try await find(temp.store, ["selector": ["manager": true], "limit": 1])
        #expect(page.docs.map { $0["_id"] } == ["u00"])
        #expect(page.warning == "No matching index found, create an index to optimize query time.")
        // `limit=0` stops at the first match, as CouchDB's coordinator stops at the first row its shards send;
        // a selector nothing matches is checked against every document, as each shard does.
        let first = try await find(temp.store, ["selector": ["manager": true], "limit": 0])
        #expect(first.docs.isEmpty)
        #expect(first.warning == "No matching index found, create an index to optimize query time.")
        let none = try await find(temp.store, ["selector": ["manager": "x"], "limit": 0])
        #expect(none.warning?.contains("The number of documents examined is high") == true)
    }

    /// A scan whose SQL conditions only repeat its key range reads every row of it in the loop, so the rows
    /// are not counted again; where they are stricter than the range (a `$gt`, a `$beginsWith`, a column after
    /// a ranged one) the rows they skip are. Either way the warning is the one the same query with
    /// `execution_stats`, which reads every row of the range in the loop, gets.
    @Test func theScanWarningIsTheSameWhereConditionsRepeatTheRangeOrNot() async throws {
        let temp = try TemporaryStore()
        // Twenty documents per `b`; two of those with b = 9 match `c`.
        let rows = (0..<200).map { number -> JSONValue in
            [
                "_id": .string("d\(1000 + number)"), "a": .number(JSONNumber(number % 2)), "b": .number(JSONNumber(number % 10)),
                "s": .string("k\(number % 10)"), "c": .string(number == 9 || number == 19 ? "x" : "y"),
            ]
        }
        _ = try await temp.store.bulkDocs(rows)
        try await temp.store.createIndex(IndexDefinition(name: "b", designDocument: "b", fields: [.ascending("b")]))
        try await temp.store.createIndex(IndexDefinition(name: "s", designDocument: "s", fields: [.ascending("s")]))
        try await temp.store.createIndex(
            IndexDefinition(name: "ab", designDocument: "ab", fields: [.ascending("a"), .ascending("b")]))
        let queries: [(selector: JSONValue, index: String)] = [
            (["b": ["$gt": 8], "c": "x"], "b"), (["b": ["$gte": 9], "c": "x"], "b"), (["b": 9, "c": "x"], "b"),
            (["b": ["$gte": 9, "$lte": 9], "c": "x"], "b"), (["b": ["$gt": 8, "$lt": 10], "c": "x"], "b"),
            (["s": ["$beginsWith": "k9"], "c": "x"], "s"), (["s": ["$gte": "k9"], "c": "x"], "s"),
            (["a": 1, "b": ["$gte": 9], "c": "x"], "ab"), (["a": 1, "b": ["$gt": 8], "c": "x"], "ab"),
            (["a": ["$gte": 1], "b": 9, "c": "x"], "ab"), (["a": 1, "b": 9, "c": "x"], "ab"),
        ]
        var warned = 0
        for (selector, index) in queries {
            for limit in [25, 1] {
                let request: JSONValue = ["selector": selector, "use_index": .string(index), "limit": .number(JSONNumber(limit))]
                guard case .object(var counted) = request else { continue }
                counted["execution_stats"] = true
                let withStatistics = try await find(temp.store, .object(counted))
                let without = try await find(temp.store, request)
                #expect(without.docs == withStatistics.docs, "\(selector) limit \(limit)")
                #expect(without.warning == withStatistics.warning, "\(selector) limit \(limit)")
                if without.warning?.contains("documents examined is high") == true { warned += 1 }
            }
        }
        // Some ranges read enough rows per match for the warning and some do not: both cases are met.
        #expect(warned > 0 && warned < 2 * queries.count, "\(warned)")
    }

    @Test func aZeroLimitReturnsNoDocument() async throws {
        let temp = try await users()
        #expect(try await find(temp.store, ["selector": ["age": ["$gt": 0]], "limit": 0]).docs.isEmpty)
        #expect(try await find(temp.store, ["selector": [:], "limit": 0]).docs.isEmpty)
    }

    @Test func aSelectorThatCanMatchNothingIsAnsweredWithDocsAlone() async throws {
        let temp = try await users()
        let result = try await find(temp.store, ["selector": ["$or": []], "execution_stats": true])
        #expect(result.json == ["docs": []])
        // Inside a larger selector the empty $or is vacuously true.
        #expect(try await find(temp.store, ["selector": ["age": 20, "$or": []]]).docs.count == 1)
    }

    @Test func explainShowsCouchDBsOptionsAndViewKeys() async throws {
        let temp = try await users()
        let plan = try await temp.store.explain(FindRequest(["selector": ["age": ["$gt": 0]], "fields": ["manager"]]))
        #expect(plan["opts"]?["use_index"] == [] && plan["opts"]?["bookmark"] == "nil" && plan["opts"]?["partition"] == "")
        #expect(plan["opts"]?["r"] == 1 && plan["opts"]?["stale"] == false && plan["opts"]?["sort"] == [:])
        #expect(plan["mrargs"]?["start_key"] == [0] && plan["mrargs"]?["end_key"] == ["<MAX>"])
        #expect(plan["mrargs"]?["conflicts"] == "undefined" && plan["mrargs"]?["direction"] == "fwd")
        #expect(plan["selector_hints"] == [["type": "json", "indexable_fields": ["age"], "unindexable_fields": []]])
        let byID = try await temp.store.explain(FindRequest(["selector": ["_id": "u03"]]))
        #expect(byID["index"]?["name"] == "_all_docs")
        #expect(byID["mrargs"]?["start_key"] == "u03" && byID["mrargs"]?["end_key"] == "u03")
        let prefix = try await temp.store.explain(FindRequest(["selector": ["nope": ["$beginsWith": "a"]]]))
        #expect(prefix["mrargs"]?["start_key"] == .some(.null) && prefix["mrargs"]?["end_key"] == "<MAX>")
    }

    @Test func anIndexListsItsPartialFilterNormalisedAsCouchDBStoresIt() async throws {
        let temp = try await users()
        try await temp.store.createIndex(
            IndexDefinition(indexRequest: ["index": ["fields": ["age"], "partial_filter_selector": ["company": "Acme"]], "ddoc": "p"]))
        let listing = try await temp.store.indexListingJSON()
        let partial = listing["indexes"]?.arrayValue?.first { $0["ddoc"] == "_design/p" }
        #expect(partial?["def"]?["partial_filter_selector"] == ["company": ["$eq": "Acme"]])
    }

    /// `r` above 1 reads documents as CouchDB's coordinator does, whose documents never carry `_conflicts`.
    @Test func conflictsAreAddedOnlyToDocumentsReadAtTheShard() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs([["_id": "cf", "_rev": "1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "n": 1]], newEdits: false)
        _ = try await temp.store.bulkDocs([["_id": "cf", "_rev": "1-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "n": 2]], newEdits: false)
        let local = try await find(temp.store, ["selector": ["_id": "cf"], "conflicts": true])
        #expect(local.docs.first?["_conflicts"] == ["1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"])
        let quorum = try await find(temp.store, ["selector": ["_id": "cf"], "conflicts": true, "r": 2])
        #expect(quorum.docs.count == 1 && quorum.docs.first?["_conflicts"] == nil)
        let onConflicts: JSONValue = ["selector": ["_id": "cf", "_conflicts": ["$exists": true]], "conflicts": true]
        #expect(try await find(temp.store, onConflicts).docs.count == 1)
        guard case .object(var quorumOnConflicts) = onConflicts else { return }
        quorumOnConflicts["r"] = 2
        #expect(try await find(temp.store, .object(quorumOnConflicts)).docs.isEmpty)
    }

    /// `mango_cursor_view:update_bookmark_keys/2` records each match while the limit is above 0, skipped ones
    /// included; `"nil"`, what a page without matches answers, is a bookmark CouchDB cannot read.
    @Test func aPageThatSkipLeftEmptyHasTheLastSkippedMatchAsItsBookmarkAndNilIsRefused() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs((20..<30).map { ["_id": .string("d\($0)"), "v": .number(JSONNumber($0))] })
        try await temp.store.createIndex(IndexDefinition(name: "v", fields: [.ascending("v")]))
        for useIndex in [true, false] {
            var body: JSONObject = ["selector": ["v": ["$gt": 25]], "skip": 4, "fields": ["v"]]
            if !useIndex { body["use_index"] = "_all_docs" }
            let page = try await find(temp.store, .object(body))
            #expect(page.docs.isEmpty)
            let decoded = try JSONValue(parsing: Array(try #require(Base64.decode(page.bookmark))))
            #expect(decoded["id"] == "d29", "\(useIndex)")
            body["limit"] = 0
            #expect(try await find(temp.store, .object(body)).bookmark == "nil")
        }
        // A page the index alone decides, written from stored bodies.
        let decided = try await find(temp.store, ["selector": ["v": 29], "skip": 1])
        #expect(decided.docs.isEmpty)
        #expect(try JSONValue(parsing: Array(try #require(Base64.decode(decided.bookmark))))["id"] == "d29")
        do {
            _ = try await find(temp.store, ["selector": [:], "bookmark": "nil"])
            Issue.record("a bookmark of \"nil\" was read")
        } catch let error as CloudantError {
            #expect(error.queryErrorKind == .invalidBookmark)
            #expect(error.message == #"Invalid bookmark value: "nil""#)
        }
    }
}
