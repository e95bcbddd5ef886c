import CloudantCore
import CloudantOnly
import CloudantStore
import CloudantTestSupport
import Dispatch
import Foundation
import Testing

struct Clinician: CloudantEntity, Hashable {
    var id: String
    var title: String
    var age: Int
    var revId: String?
}

@Suite("Fluent query builder (collection/where/sort/get)")
struct BuilderTests {
    /// Five clinicians, plus a document of another kind that matches every condition but the kind.
    func clinicians() async throws -> TemporaryStore {
        var registry = EntityRegistry()
        try registry.register(EntityKind(Clinician.self))
        let temp = try TemporaryStore(registry: registry)
        try await temp.store.add([
            Clinician(id: "c1", title: "Family Practice Doctor", age: 15),
            Clinician(id: "c2", title: "Family Practice Doctor", age: 40),
            Clinician(id: "c3", title: "Test", age: 25),
            Clinician(id: "c4", title: "Test", age: 35),
            Clinician(id: "c5", title: "Nurse", age: 20),
        ])
        _ = try await temp.store.put(["_id": "other", "entityType": "Patient", "title": "Test", "age": 25])
        return temp
    }

    func ids(_ docs: [JSONObject]) -> [String] { docs.compactMap { $0["_id"]?.stringValue } }

    @Test func aCollectionAloneReturnsEveryDocumentOfItsKindAndNoOther() async throws {
        let temp = try await clinicians()
        #expect(ids(try await temp.store.collection("Clinician").get()) == ["c1", "c2", "c3", "c4", "c5"])
        #expect(ids(try await temp.store.collection(Clinician.self).get()) == ["c1", "c2", "c3", "c4", "c5"])
        #expect(ids(try await temp.store.collection("Patient").get()) == ["other"])
    }

    @Test func aSimpleComponentFiltersByItsOperator() async throws {
        let temp = try await clinicians()
        let query = temp.store.collection("Clinician")
        #expect(ids(try await query.where(.simpleComponent("age", .lessThan, 25)).get()) == ["c1", "c5"])
        let labelled = QueryComponent.simpleComponent(field: "age", comparisonOperator: .in, value: [15, 35])
        #expect(ids(try await query.where(labelled).get()) == ["c1", "c4"])
        #expect(ids(try await query.where(.simpleComponent("title", .notEqual, "Test")).get()) == ["c1", "c2", "c5"])
        #expect(ids(try await query.where(.simpleComponent("title", .beginsWith, "Fam")).get()) == ["c1", "c2"])
        #expect(ids(try await query.where(field: "title", value: "Nurse").get()) == ["c5"])
        #expect(ids(try await query.where(.simpleComponent("title", .regex, "^N")).get()) == ["c5"])
        #expect(ids(try await query.where(.simpleComponent("title", .type, "number")).get()).isEmpty)
        #expect(ids(try await query.where(.simpleComponent("nickname", .exists, false)).get()).count == 5)
    }

    @Test func successiveWhereCallsAreAndedEvenOnTheSameField() async throws {
        let temp = try await clinicians()
        let query = temp.store.collection("Clinician")
            .where(.simpleComponent("age", .greaterThan, 15))
            .where(.simpleComponent("age", .lessThan, 40))
        #expect(ids(try await query.get()) == ["c3", "c4", "c5"])
    }

    @Test func aCombinedComponentAndsOrOrsItsSides() async throws {
        let temp = try await clinicians()
        let doctor = QueryComponent.simpleComponent("title", .equal, "Family Practice Doctor")
        let young = QueryComponent.simpleComponent("age", .in, [15, 20, 30])
        let query = temp.store.collection("Clinician")
        #expect(ids(try await query.where(.combinedComponent(doctor, .and, young)).get()) == ["c1"])
        #expect(ids(try await query.where(.combinedComponent(doctor, .or, young)).get()) == ["c1", "c2", "c5"])
    }

    @Test func componentsNestThreeLevelsDeep() async throws {
        let temp = try await clinicians()
        let first = QueryComponent.combinedComponent(
            .simpleComponent("title", .equal, "Family Practice Doctor"), .and, .simpleComponent("age", .in, [15, 20, 30]))
        let second = QueryComponent.combinedComponent(
            .simpleComponent("title", .equal, "Test"), .and, .simpleComponent("age", .lessThan, 30))
        let third = QueryComponent.combinedComponent(
            .combinedComponent(first, .or, second), .or, .simpleComponent("title", .equal, "Nurse"))
        #expect(ids(try await temp.store.collection("Clinician").where(third).get()) == ["c1", "c3", "c5"])
        let excluding = QueryComponent.combinedComponent(third, .and, .simpleComponent("age", .greaterThan, 15))
        #expect(ids(try await temp.store.collection("Clinician").where(excluding).get()) == ["c3", "c5"])
    }

    @Test func theShortFormCombinesTwoComponents() async throws {
        let temp = try await clinicians()
        let docs = try await temp.store.collection("Clinician")
            .where(.simpleComponent("title", .equal, "Test"), .and, .simpleComponent("age", .greaterThan, 30))
            .get()
        #expect(ids(docs) == ["c4"])
    }

    @Test func aComponentIsItsMangoFragmentAtAnyDepth() {
        let family = QueryComponent.simpleComponent("title", .equal, "Family Practice Doctor")
        let young = QueryComponent.simpleComponent(field: "age", comparisonOperator: .in, value: [15, 20, 30])
        let either = QueryComponent.combinedComponent(
            .combinedComponent(family, .and, young), .or, .simpleComponent("title", .equal, "Test"))
        #expect(
            either.json.jsonString()
                == #"{"$or":[{"$and":[{"title":{"$eq":"Family Practice Doctor"}},{"age":{"$in":[15,20,30]}}]},"#
                + #"{"title":{"$eq":"Test"}}]}"#)
        #expect(ComparisonOperator.allCases.map(\.mangoOperator) == [
            "$eq", "$ne", "$lt", "$lte", "$gt", "$gte", "$in", "$nin", "$exists", "$regex", "$beginsWith", "$size",
            "$type", "$mod",
        ])
    }

    @Test func theRequestIsTheKindAndedWithTheComponents() throws {
        let temp = try TemporaryStore()
        let query = temp.store.collection("Clinician", fields: ["_id", "title"])
            .where(.simpleComponent("age", .greaterThanOrEqual, 18))
            .sort(descending: "age").limit(3).skip(1)
        #expect(query.selectorJSON.jsonString() == #"{"$and":[{"entityType":"Clinician"},{"age":{"$gte":18}}]}"#)
        let request = try query.request
        #expect(request.sort == [SortField(FieldPath(["age"]), descending: true)])
        #expect(request.limit == 3)
        #expect(request.skip == 1)
        #expect(request.fields == [FieldPath(["_id"]), FieldPath(["title"])])
    }

    @Test func sortOrdersByAnyFieldWithoutAnIndex() async throws {
        let temp = try await clinicians()
        let query = temp.store.collection("Clinician")
        #expect(ids(try await query.sort(ascending: "age").get()) == ["c1", "c5", "c3", "c4", "c2"])
        #expect(ids(try await query.sort(descending: "age").get()) == ["c2", "c4", "c3", "c5", "c1"])
        let byTitleThenAge = try await query.sort(ascending: "title").sort(ascending: "age").get()
        #expect(ids(byTitleThenAge) == ["c1", "c2", "c5", "c3", "c4"])
    }

    @Test func limitAndSkipPageTheSortedMatches() async throws {
        let temp = try await clinicians()
        let sorted = temp.store.collection("Clinician").sort(ascending: "age")
        #expect(ids(try await sorted.limit(2).get()) == ["c1", "c5"])
        #expect(ids(try await sorted.skip(2).limit(2).get()) == ["c3", "c4"])
        #expect(ids(try await sorted.skip(4).get()) == ["c2"])
        #expect(try await sorted.limit(0).get().isEmpty)
    }

    @Test func chainingReturnsANewQueryAndLeavesTheOriginalUnchanged() async throws {
        let temp = try await clinicians()
        let base = temp.store.collection("Clinician")
        _ = base.where(field: "title", value: "Nurse").limit(1)
        #expect(try await base.get().count == 5)
    }

    @Test func fieldsProjectEachDocument() async throws {
        let temp = try await clinicians()
        let docs = try await temp.store.collection("Clinician", fields: ["_id", "age"])
            .where(field: "title", value: "Nurse").get()
        #expect(docs == [["_id": "c5", "age": 20]])
    }

    @Test func typedGetDecodesThroughTheEntityCodec() async throws {
        let temp = try await clinicians()
        let stored = try await temp.store.get(Clinician.self, id: "c3")
        let found = try await temp.store.collection(Clinician.self)
            .where(.simpleComponent("title", .equal, "Test")).sort(descending: "age").get(Clinician.self)
        #expect(found.map(\.id) == ["c4", "c3"])
        #expect(found.last == stored)
        #expect(found.allSatisfy { $0.revId?.hasPrefix("1-") == true })
    }

    @Test func typedGetRefusesAQueryForAnotherKind() async throws {
        let temp = try await clinicians()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.collection("Patient").get(Clinician.self)
        }
        #expect(error?.code == .invalidInput)
        #expect(error?.context.kind == "Patient")
    }

    @Test(arguments: [
        QueryComponent.simpleComponent("age", .in, 15),
        .simpleComponent("age", .notIn, "x"),
        .simpleComponent("tags", .size, "two"),
        .simpleComponent("age", .exists, 1),
        .combinedComponent(.simpleComponent("age", .equal, 1), .or, .simpleComponent("age", .mod, [0, 1])),
    ])
    func anInvalidComponentThrowsBadArgInsteadOfReturningNothing(_ component: QueryComponent) async throws {
        let temp = try await clinicians()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.collection("Clinician").where(component).get()
        }
        #expect(error?.queryErrorKind?.rawValue == "bad_arg")
        #expect(error?.category == .invalidInput)
    }

    @Test func aNegativeLimitOrAnEmptySortPathThrows() async throws {
        let temp = try await clinicians()
        let query = temp.store.collection("Clinician")
        let limit = await #expect(throws: CloudantError.self) { try await query.limit(-1).get() }
        #expect(limit?.queryErrorKind == .invalidValue)
        let sort = await #expect(throws: CloudantError.self) { try await query.sort(ascending: "a..b").get() }
        #expect(sort?.queryErrorKind == .invalidFieldName)
    }

    @Test func callbacksFireOnceOnTheGivenQueue() async throws {
        let temp = try await clinicians()
        let queue = DispatchQueue(label: "builder-tests.callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "callbacks")
        let calls = SequentialNumbers()
        let query = temp.store.collection("Clinician").where(field: "title", value: "Test")

        let (docs, onQueue) = await withCheckedContinuation { continuation in
            query.get(callbackQueue: queue) { result in
                _ = calls.next()
                continuation.resume(returning: ((try? result.get()) ?? [], DispatchQueue.getSpecific(key: key)))
            }
        }
        #expect(ids(docs) == ["c3", "c4"])
        #expect(onQueue == "callbacks")

        let (typed, typedOnQueue) = await withCheckedContinuation { continuation in
            query.get(Clinician.self, callbackQueue: queue) { result in
                _ = calls.next()
                continuation.resume(returning: ((try? result.get()) ?? [], DispatchQueue.getSpecific(key: key)))
            }
        }
        #expect(typed.map(\.id) == ["c3", "c4"])
        #expect(typedOnQueue == "callbacks")

        let failure = await withCheckedContinuation { continuation in
            query.where(.simpleComponent("age", .in, 1)).get(callbackQueue: queue) { result in
                _ = calls.next()
                if case .failure(let error) = result { continuation.resume(returning: Optional(error)) }
                else { continuation.resume(returning: nil) }
            }
        }
        #expect(failure?.queryErrorKind?.rawValue == "bad_arg")
        // A second call would be queued behind the first; give it the chance, then count.
        try await Task.sleep(for: .milliseconds(50))
        queue.sync {}
        #expect(calls.next() == 4)
    }
}
