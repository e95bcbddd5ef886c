@testable import CloudantCore
import Testing

@Suite("Plans cached by request shape")
struct QueryPlanCacheTests {
    static func index(_ ddoc: String, _ fields: [String]) -> IndexDefinition {
        IndexDefinition(name: ddoc, designDocument: ddoc, fields: fields.map { .ascending($0) })
    }

    static let indexes = [
        index("by-kind-id", ["kind", "id"]), index("by-id", ["id"]), index("by-age", ["age"]),
        index("by-name-age", ["name", "age"]), index("by-date", ["date"]),
    ]

    /// Request templates, each with several values; `$VALUE` pairs differ in every value, including values
    /// that make a range empty (`age` both above 5 and below 3) and values of other JSON types.
    static let requests: [[JSONValue]] = [
        [["selector": ["kind": "task", "id": "a"]], ["selector": ["kind": "outcome", "id": "zz"]], ["selector": ["kind": 1, "id": true]]],
        [["selector": ["age": ["$gt": 5, "$lt": 9]]], ["selector": ["age": ["$gt": 5, "$lt": 3]]], ["selector": ["age": ["$gt": "x", "$lt": "y"]]]],
        [["selector": ["name": "A", "age": ["$gte": 2]], "sort": ["name", "age"]], ["selector": ["name": "B", "age": ["$gte": 90]], "sort": ["name", "age"]]],
        [["selector": ["_id": ["$gt": "a"]]], ["selector": ["_id": ["$gt": "z", "$lt": "b"]]], ["selector": ["_id": ["$gt": 1]]]],
        [["selector": ["other": 1]], ["selector": ["other": "2"]]],
        [["selector": ["$or": [["id": "a"], ["id": "b"]], "kind": "k"]], ["selector": ["$or": [["id": 1], ["id": 2]], "kind": 3]]],
        [["selector": ["date": ["$exists": true]], "fields": ["date"]], ["selector": ["date": ["$exists": true]], "fields": ["date"], "limit": 3]],
        [["selector": ["id": ["$beginsWith": "ab"]]], ["selector": ["id": ["$beginsWith": ""]]]],
        [["selector": ["age": 4], "sort": [["age": "desc"]]], ["selector": ["age": 40], "sort": [["age": "desc"]]]],
        [["selector": ["name": "x"], "sort": ["age"]], ["selector": ["name": "y"], "sort": ["age"]]],
        [["selector": ["$or": []]], ["selector": ["$or": []]]],
    ]

    /// Everything a plan decides, written out for comparison.
    static func summary(_ plan: QueryPlan) -> String {
        "\(plan.access) empty=\(plan.isEmpty) desc=\(plan.descending) order=\(plan.order) ordered=\(plan.scanIsOrdered) "
            + "covering=\(plan.isCovering) fallback=\(plan.unsortedFallbackReason ?? "-") warnings=\(plan.warnings) "
            + "refusal=\(plan.sortRefusal != nil)"
    }

    @Test("Every request of a shape gets the plan the planner makes for it, whichever value was cached first")
    func cachedPlansEqualFreshPlansForEveryValue() throws {
        for variants in Self.requests {
            for first in variants.indices {
                let cache = QueryPlanCache()
                let order = [variants[first]] + variants
                for body in order {
                    let request = try FindRequest(body)
                    let fresh = try QueryPlanner.plan(request, indexes: Self.indexes, listingCandidates: false)
                    let cached = try cache.plan(
                        request, indexes: Self.indexes, catalogueVersion: 1, databaseIsPartitioned: false)
                    #expect(Self.summary(cached) == Self.summary(fresh), "\(body)")
                }
            }
        }
    }

    @Test("A new catalogue version drops the plans made for the old indexes")
    func aNewCatalogueVersionReplansOverTheNewIndexes() throws {
        let cache = QueryPlanCache()
        let request = try FindRequest(["selector": ["id": "a"]])
        let before = try cache.plan(request, indexes: [], catalogueVersion: 1, databaseIsPartitioned: false)
        guard case .allDocuments = before.access else {
            Issue.record("expected _all_docs without indexes, got \(before.access)")
            return
        }
        let after = try cache.plan(request, indexes: Self.indexes, catalogueVersion: 2, databaseIsPartitioned: false)
        guard case .json(let index, let ranges) = after.access else {
            Issue.record("expected the id index, got \(after.access)")
            return
        }
        #expect(index.name == "by-id" && ranges.count == 1)
    }

    @Test("Text searches and partitioned databases plan as the planner does")
    func textSearchesAndPartitionedDatabasesAreNotConfused() throws {
        let cache = QueryPlanCache()
        let request = try FindRequest(["selector": ["kind": "task", "id": "a"]])
        let plain = try cache.plan(request, indexes: Self.indexes, catalogueVersion: 1, databaseIsPartitioned: false)
        let partitioned = try cache.plan(request, indexes: Self.indexes, catalogueVersion: 1, databaseIsPartitioned: true)
        let fresh = try QueryPlanner.plan(request, indexes: Self.indexes, databaseIsPartitioned: true, listingCandidates: false)
        #expect(Self.summary(partitioned) == Self.summary(fresh))
        #expect(Self.summary(plain) != Self.summary(partitioned))
        #expect(throws: CloudantError.self) {
            try cache.plan(
                FindRequest(["selector": ["$text": "hello"]]), indexes: Self.indexes, catalogueVersion: 1,
                databaseIsPartitioned: false)
        }
    }
}
