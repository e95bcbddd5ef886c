import CloudantOnly
import Foundation
import Testing

/// OTFCloudantStore's README: store, CRUD, query and error snippets, run against the drop-in `OTFCloudantStore`.
@Suite("OTFCloudantStore's README: store, CRUD, queries, errors")
struct StoreSnippetTests {
    @Test func storeNameAloneOpensTheStoreInTheDocumentedDefaultFolder() throws {
        let name = "seed_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let store = try StoreSnippets.openStore(named: name)
        defer {
            try? store.close()
            try? StoreDirectory.deleteFiles(of: store.documentStore.fileURL, database: name)
        }
        #expect(store.directory == OTFCloudantStore.defaultDirectory)
        #expect(store.documentStore.fileURL.path == OTFCloudantStore.defaultDirectory + "/\(name).sqlite")
        #expect(FileManager.default.fileExists(atPath: store.documentStore.fileURL.path))
        if let home = ProcessInfo.processInfo.environment["HOME"], ProcessInfo.processInfo.environment["XDG_DATA_HOME"] == nil {
            #expect(OTFCloudantStore.defaultDirectory == home + "/.local/share/cloudant-sync-datastore")
        }
    }

    @Test func aStoreNameCouchDBWouldRefuseIsAnInvalidValue() {
        let folder = SeedFolder()
        #expect {
            _ = try OTFCloudantStore(storeName: "your store name", directory: folder.path)
        } throws: { error in
            guard case .invalidValue(let reason)? = error as? OTFCloudantError else { return false }
            return reason.contains("your store name")
        }
    }

    @Test func crudWithCallbacksAddsReadsUpdatesAndDeletesEachBatchOnce() async throws {
        let folder = SeedFolder()
        let findings = try await StoreSnippets.crud(try folder.store())
        #expect(findings.added == ["n1", "n2"])
        #expect(findings.fetched == ["Take with food", "Not after 8 pm"])
        #expect(findings.updatedRevisions.count == 1 && findings.updatedRevisions[0].hasPrefix("2-"))
        #expect(findings.deletedAll)
        #expect(findings.errors["staleUpdate"]?.hasPrefix("updateFailed: conflict") == true)
        #expect(findings.errors["duplicateAdd"]?.hasPrefix("addFailed: conflict") == true)
        #expect(findings.errors["deleteWithoutRevision"]?.hasPrefix("deleteFailed: conflict") == true)
    }

    @Test func everyQuerySpellingOfTheSeedReturnsWhatItSays() async throws {
        let folder = SeedFolder()
        let findings = try await StoreSnippets.queries(try folder.store())
        #expect(findings.queries["wherePropertyName"] == ["c3"])
        #expect(findings.queries["sortAscending"] == ["c1", "c2", "c3", "c4"])
        #expect(findings.queries["sortDescending"] == ["c4", "c3", "c2", "c1"])
        #expect(findings.queries["title"]?.sorted() == ["c1", "c2"])
        #expect(findings.queries["ageLessThan"] == ["c1"])
        #expect(findings.queries["ageIn"]?.sorted() == ["c1", "c4"])
        #expect(findings.queries["combined"] == ["c1"])
        #expect(findings.queries["firstCombined"] == ["c1"])
        #expect(findings.queries["secondCombined"]?.sorted() == ["c1", "c3", "c4"])
        #expect(findings.queries["complex"]?.sorted() == ["c1", "c3", "c4"])
        #expect(findings.queries["short"] == ["c1"])
        #expect(findings.errors["malformedQuery"]?.hasPrefix("invalidValue: ") == true)
    }

    @Test func theOriginalsOtherWhereSpellingsBuildTheSameConditions() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        _ = try await StoreSnippets.queries(store)
        let query = store.collection(className: "OCKContact")
        func ids(_ query: OTFCloudantQuery) async throws -> [String] { try await query.get(OCKContact.self).map(\.id).sorted() }
        #expect(try await ids(query.where("title", isEqualTo: "Nurse")) == ["c4"])
        #expect(try await ids(query.where("title", notEqualTo: "Family Practice Doctor")) == ["c3", "c4"])
        #expect(try await ids(query.where("age", isLessThan: 20)) == ["c1"])
        #expect(try await ids(query.where("age", isLessThanOrEquaTo: 20)) == ["c1", "c4"])
        #expect(try await ids(query.where("age", isGreeterThan: 25)) == ["c2"])
        #expect(try await ids(query.where("age", isGreeterThanOrEqualTo: 25)) == ["c2", "c3"])
        #expect(try await ids(query.where(field: "age", in: [15, 45])) == ["c1", "c2"])
        #expect(try await ids(query.where(field: "age", notIn: [15, 45])) == ["c3", "c4"])
        #expect(try await ids(query.where(field: "revId", exists: true)) == [])
        #expect(try await ids(try query.where(field: "age", mode: 10, equal: 5)) == ["c1", "c2", "c3"])
        #expect(throws: OTFCloudantError.self) { try query.where(field: "age", mode: 0, equal: 1) }
        #expect(try await ids(query.where(firstCondition: ["title": "Test"], or: ["age": ["$gt": 40]])) == ["c2", "c3"])
        #expect(try await ids(query.where(firstCondition: ["title": "Nurse"], and: ["age": 20])) == ["c4"])
        // Two conditions on one field are both kept (the original replaced the first).
        #expect(try await ids(query.where("age", isGreeterThan: 14).where("age", isLessThan: 21)) == ["c1", "c4"])
        #expect(try await query.ordered(by: "age", ascending: false).limit(limit: 2).skip(skip: 1).get(OCKContact.self).map(\.id) == ["c3", "c4"])
        #expect(try await query.sort(descendingBy: "age").limit(1).getDocuments().map { $0["_id"]?.stringValue } == ["c2"])
        let variable = 20
        #expect(try await ids(query.where(.simpleComponent("age", .equal, variable))) == ["c4"])
    }

    @Test func noHiddenLimitOfThirty() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        _ = try await store.add((0..<45).map { MedicationNote(id: String(format: "note-%02d", $0), text: "\($0)") })
        #expect(try await store.collection(MedicationNote.self).get(MedicationNote.self).count == 45)
        #expect(try await store.get(MedicationNote.self).count == 45)
    }

    @Test func eachCompletionIsCalledExactlyOnceOnTheQueueGiven() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        let queue = DispatchQueue(label: "callbacks")
        let key = DispatchSpecificKey<String>()
        queue.setSpecific(key: key, value: "callbacks")
        let calls = CallCounter()
        // A batch whose second item fails: one failure, nothing written (the original called back twice).
        let result: Result<[MedicationNote], OTFCloudantError> = await withCheckedContinuation { continuation in
            store.add([MedicationNote(id: "a", text: "1"), MedicationNote(id: "a", text: "2")], callbackQueue: queue) { result in
                calls.increment(onQueue: DispatchQueue.getSpecific(key: key) == "callbacks")
                continuation.resume(returning: result)
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        queue.sync {}
        #expect(calls.count == 1 && calls.allOnQueue)
        guard case .failure(.addFailed) = result else { Issue.record("expected addFailed, got \(result)"); return }
        #expect(try await store.get(MedicationNote.self).isEmpty)
    }
}

/// Counts callback calls and whether each ran on the expected queue.
final class CallCounter: @unchecked Sendable {
    // `lock` protects both counters.
    private let lock = NSLock()
    private var calls = 0
    private var offQueue = 0

    func increment(onQueue: Bool) {
        lock.withLock {
            calls += 1
            if !onQueue { offQueue += 1 }
        }
    }

    var count: Int { lock.withLock { calls } }
    var allOnQueue: Bool { lock.withLock { offQueue == 0 } }
}
