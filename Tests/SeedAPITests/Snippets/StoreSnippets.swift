// OTFCloudantStore's README: the store, its typed CRUD, the query builder and its components, the
// error enum, as its users wrote them. Compiled here against CloudantOnly alone (and by Examples/Flavours
// against each flavour's product).
//
// Changed for Linux, and only there: `import OTFCloudantStore` is the flavour's module; the store's name
// follows CouchDB's rule ("your store name" has spaces) and its initializer is called with `try` (the
// original's threw too); `OCKContact` is the app's own Codable type (CareKit's does not exist on Linux);
// callbacks name a queue (a test process has no main run loop to drain `.main`).
import CloudantOnly
import Dispatch
import Foundation

/// An app entity, as the seed asks: "your class must conform to the Codable, Identifiable and
/// OTFCloudantRevision".
struct MedicationNote: Codable, Identifiable, OTFCloudantRevision {
    var id: String
    var text: String
    var revId: String?
}

/// The app's contact type the seed's queries run over (stored with `entityType` "OCKContact").
struct OCKContact: Codable, Identifiable, OTFCloudantRevision {
    var id: String
    var title: String
    var age: Int
    var familyName: String
    var effectiveDate: String
    var revId: String?
}

/// What the store snippets did, for the tests and the flavour consumers to check.
struct StoreSnippetFindings: Sendable {
    var added: [String] = []
    var fetched: [String] = []
    var updatedRevisions: [String] = []
    var deletedAll = false
    var queries: [String: [String]] = [:]
    var errors: [String: String] = [:]
}

enum StoreSnippets {
    static let queue = DispatchQueue(label: "seed-snippets")

    /// OTFCloudantStore's README, "Usage": `let store = OTFCloudantStore(storeName: "your store name")`.
    static func openStore(named name: String) throws -> OTFCloudantStore {
        let store = try OTFCloudantStore(storeName: name)
        return store
    }

    /// OTFCloudantStore's README, "OTFCloudantRevision": add, get, update and delete, each with `callbackQueue` and a
    /// `Result<[Entity], OTFCloudantError>` completion.
    static func crud(_ store: OTFCloudantStore) async throws -> StoreSnippetFindings {
        var findings = StoreSnippetFindings()
        let notes = [MedicationNote(id: "n1", text: "Take with food"), MedicationNote(id: "n2", text: "Not after 8 pm")]

        let added: Result<[MedicationNote], OTFCloudantError> = await callback { done in
            store.add(notes, callbackQueue: queue) { result in done(result) }
        }
        var saved = try added.get()
        findings.added = saved.map(\.id)

        let fetched: Result<[MedicationNote], OTFCloudantError> = await callback { done in
            store.get(callbackQueue: queue) { (result: Result<[MedicationNote], OTFCloudantError>) in done(result) }
        }
        findings.fetched = try fetched.get().map(\.text)

        saved[0].text = "Take with food and water"
        let updated: Result<[MedicationNote], OTFCloudantError> = await callback { done in
            store.update([saved[0]], callbackQueue: queue) { result in done(result) }
        }
        findings.updatedRevisions = try updated.get().compactMap(\.revId)

        let stale: Result<[MedicationNote], OTFCloudantError> = await callback { done in
            store.update([saved[0]], callbackQueue: queue) { result in done(result) }
        }
        if case .failure(let error) = stale { findings.errors["staleUpdate"] = describe(error) }

        let duplicate: Result<[MedicationNote], OTFCloudantError> = await callback { done in
            store.add([notes[1]], callbackQueue: queue) { result in done(result) }
        }
        if case .failure(let error) = duplicate { findings.errors["duplicateAdd"] = describe(error) }

        let unread: Result<[MedicationNote], OTFCloudantError> = await callback { done in
            store.delete([MedicationNote(id: "n2", text: "")], callbackQueue: queue) { result in done(result) }
        }
        if case .failure(let error) = unread { findings.errors["deleteWithoutRevision"] = describe(error) }

        let current = try await store.get(MedicationNote.self)
        let deleted: Result<[MedicationNote], OTFCloudantError> = await callback { done in
            store.delete(current, callbackQueue: queue) { result in done(result) }
        }
        _ = try deleted.get()
        findings.deletedAll = try await store.get(MedicationNote.self).isEmpty
        return findings
    }

    /// OTFCloudantStore's README, "OTFCloudantQuery" and "OTFCloudantQueryComponents": every example, verbatim but for the
    /// quotes.
    static func queries(_ store: OTFCloudantStore) async throws -> StoreSnippetFindings {
        var findings = StoreSnippetFindings()
        _ = try await store.add([
            OCKContact(id: "c1", title: "Family Practice Doctor", age: 15, familyName: "Amsel", effectiveDate: "2020-12-01T00:00:00Z"),
            OCKContact(id: "c2", title: "Family Practice Doctor", age: 45, familyName: "Berg", effectiveDate: "2020-11-01T00:00:00Z"),
            OCKContact(id: "c3", title: "Test", age: 25, familyName: "Chen", effectiveDate: "2021-01-05T00:00:00Z"),
            OCKContact(id: "c4", title: "Nurse", age: 20, familyName: "Dietz", effectiveDate: "2021-02-10T00:00:00Z"),
        ])
        let className = "OCKContact"
        let propertyName = "familyName"
        let theFilter = "Chen"

        // let query = store.collection(className, fields: [String]?) -> OTFCloudantQuery
        let query = store.collection(className, fields: nil)
        // query.where(propertyName: propertyName, value: theFilter) -> OTFCloudantQuery
        findings.queries["wherePropertyName"] = try await ids(query.where(propertyName: propertyName, value: theFilter))
        // Ascending: query.sort(ascending: propertyName); Descending: query.sort(descending: propertyName)
        findings.queries["sortAscending"] = try await ids(query.sort(ascending: propertyName))
        findings.queries["sortDescending"] = try await ids(query.sort(descending: propertyName))

        // The query: where the title is equal to "Family Practice Doctor"
        let titleQuery = OTFCloudantQueryComponent.simpleComponent(field: "title", comparisionOperator: .equal, value: "Family Practice Doctor", )
        findings.queries["title"] = try await ids(query.where(titleQuery))
        // The query: where the age is less than 20
        let ageQuery = OTFCloudantQueryComponent.simpleComponent(field: "age", value: 20, comparisionOperator: .lessThan)
        findings.queries["ageLessThan"] = try await ids(query.where(ageQuery))
        // The query: where the age is in [15,20,30]
        let inQuery = OTFCloudantQueryComponent.simpleComponent(field: "age", comparisionOperator: .in, value: [15,20,30])
        findings.queries["ageIn"] = try await ids(query.where(inQuery))

        // OTFCloudantCombinationQueryComponent
        let leftComponent = OTFCloudantQueryComponent.simpleComponent(field: "title", comparisionOperator: .equal, value: "Family Practice Doctor")
        let rightComponent = OTFCloudantQueryComponent.simpleComponent(field: "age", comparisionOperator: .in, value: [15,20,30])
        let combinedQuery = OTFCloudantCombinationQueryComponent.combinedQueryComponent(leftComponent: leftComponent, combinationSelector: .and, rightComponent: rightComponent)
        findings.queries["combined"] = try await ids(query.where(combinedQuery))

        // OTFCloudantComplexQueryComponent (the seed combines the second query's two parts, as written)
        let leftComponentFirstQuery = OTFCloudantQueryComponent.simpleComponent(field: "title", comparisionOperator: .equal, value: "Family Practice Doctor")
        let rightComponentFirstQuery = OTFCloudantQueryComponent.simpleComponent(field: "age", comparisionOperator: .in, value: [15,20,30])
        let firstCombinedQuery = OTFCloudantCombinationQueryComponent.combinedQueryComponent(leftComponent: leftComponentFirstQuery, combinationSelector: .and, rightComponent: rightComponentFirstQuery)
        let leftComponentSecondQuery = OTFCloudantQueryComponent.simpleComponent(field: "title", comparisionOperator: .equal, value: "Test")
        let rightComponentSecondQuery = OTFCloudantQueryComponent.simpleComponent(field: "age", comparisionOperator: .lessThan, value: 30)
        let secondCombinedQuery = OTFCloudantCombinationQueryComponent.combinedQueryComponent(leftComponent: leftComponentSecondQuery, combinationSelector: .or, rightComponent: rightComponentSecondQuery)
        let complexQuery = OTFCloudantComplexQueryComponent.complexQueryComponent(leftComponent: leftComponentSecondQuery, combinationSelector: .or, rightComponent: rightComponentSecondQuery)
        findings.queries["firstCombined"] = try await ids(query.where(firstCombinedQuery))
        findings.queries["secondCombined"] = try await ids(query.where(secondCombinedQuery))
        findings.queries["complex"] = try await ids(query.where(complexQuery))

        // Short Query: dataStore.collection(name: "OCKContact").where(.simpleComponent(…), .and, .simpleComponent(…)).get{}
        let dataStore = store
        let short: Result<[OCKContact], OTFCloudantError> = await callback { done in
            dataStore.collection(name: "OCKContact").where(.simpleComponent("title", .equal, "Family Practice Doctor"), .and, .simpleComponent("effectiveDate", .greaterThan, "2020-11-27T23:00:00Z")).get(callbackQueue: queue) { (result: Result<[OCKContact], OTFCloudantError>) in done(result) }
        }
        findings.queries["short"] = try short.get().map(\.id)

        // A malformed condition is an error the app can switch on, not an empty array.
        let malformed: Result<[OCKContact], OTFCloudantError> = await callback { done in
            store.collection(name: "OCKContact").where(.simpleComponent("age", .in, 15)).get(callbackQueue: queue) {
                (result: Result<[OCKContact], OTFCloudantError>) in done(result)
            }
        }
        if case .failure(let error) = malformed { findings.errors["malformedQuery"] = describe(error) }
        return findings
    }

    /// OTFCloudantStore's README, "OTFCloudantError": an app switching over every case.
    static func describe(_ error: OTFCloudantError) -> String {
        switch error {
        case .fetchFailed(let reason): "fetchFailed: \(reason)"
        case .addFailed(let reason): "addFailed: \(reason)"
        case .updateFailed(let reason): "updateFailed: \(reason)"
        case .deleteFailed(let reason): "deleteFailed: \(reason)"
        case .remoteSynchronizationFailed(let reason): "remoteSynchronizationFailed: \(reason)"
        case .invalidValue(let reason): "invalidValue: \(reason)"
        case .timedOut(let reason): "timedOut: \(reason)"
        }
    }

    private static func ids(_ query: OTFCloudantQuery) async throws -> [String] {
        try await query.get(OCKContact.self).map(\.id)
    }
}

/// Waits for a callback API's single call.
func callback<Value: Sendable>(_ start: (@escaping @Sendable (Value) -> Void) -> Void) async -> Value {
    await withCheckedContinuation { continuation in start { continuation.resume(returning: $0) } }
}
