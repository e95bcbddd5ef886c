import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Batched open_revs reads (_bulk_get)")
struct OpenRevisionsBatchTests {
    @Test func aBatchAnswersExactlyWhatEachSingleReadAnswersInOrder() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        _ = try await store.bulkDocs([["_id": "a", "n": 1], ["_id": "b", "n": 2]])
        let b = try await store.document(id: "b")
        _ = try await store.bulkDocs([["_id": "b", "_rev": .string(b.rev ?? ""), "_deleted": true]])
        let requests = [
            OpenRevisionsRequest(id: "a", .all, options: ReadOptions(revs: true)),
            OpenRevisionsRequest(id: "b", .all),
            OpenRevisionsRequest(id: "b", .revisions([b.rev ?? ""])),
            OpenRevisionsRequest(id: "a", .revisions(["9-" + String(repeating: "f", count: 32)])),
        ]
        let batch = try await store.openRevisions(requests, latest: false)
        #expect(batch.count == requests.count)
        for (request, answer) in zip(requests, batch) {
            let single = try await store.openRevisions(id: request.id, request.which, options: request.options)
            #expect(try answer.get() == single)
        }
    }

    @Test func badEntriesFailAloneWithTheErrorASingleReadThrows() async throws {
        let temp = try TemporaryStore()
        _ = try await temp.store.bulkDocs([["_id": "a"]])
        let batch = try await temp.store.openRevisions([
            OpenRevisionsRequest(id: "never", .all),
            OpenRevisionsRequest(id: "a", .revisions(["not-a-revision-because-no-generation"])),
            OpenRevisionsRequest(id: "_bad", .all),
            OpenRevisionsRequest(id: "a", .all),
        ])
        guard case .failure(let unknown) = batch[0], case .failure(let badRevision) = batch[1],
            case .failure(let badID) = batch[2], case .success(let found) = batch[3]
        else {
            Issue.record("unexpected answers: \(batch)")
            return
        }
        #expect(unknown.code == .notFound)
        #expect(badRevision.code == .invalidInput)
        #expect(badID.code != .notFound)
        #expect(found.count == 1)
    }
}
