import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Interactive writes (new_edits=true)")
struct InteractiveWriteTests {
    @Test func aNewDocumentGetsGenerationOneAndA32HexRevision() async throws {
        let temp = try TemporaryStore()
        let result = try await temp.store.put(["_id": "a", "v": 1])
        #expect(result.id == "a")
        let parsed = try RevisionID(parsing: result.rev)
        #expect(parsed.generation == 1)
        #expect(parsed.hash.count == 32)
        #expect(parsed.hash.allSatisfy { "0123456789abcdef".contains($0) })
        let doc = try await temp.store.document(id: "a")
        #expect(doc == ["_id": "a", "_rev": .string(result.rev), "v": 1])
    }

    @Test func revisionsAreDeterministicForTheSameEditOnTheSameParent() async throws {
        let one = try TemporaryStore(), two = try TemporaryStore()
        let first = try await one.store.put(["_id": "a", "v": 1, "w": ["x": 1, "y": 2]])
        let second = try await two.store.put(["_id": "a", "v": 1, "w": ["x": 1, "y": 2]])
        #expect(first.rev == second.rev)
        let other = try TemporaryStore()
        #expect(try await other.store.put(["_id": "a", "v": 2]).rev != first.rev)
        // Member order is part of the body CouchDB hashes: the same members in another order are another edit.
        let reordered = try TemporaryStore()
        #expect(try await reordered.store.put(["_id": "a", "w": ["y": 2, "x": 1], "v": 1]).rev != first.rev)
    }

    @Test func anEditNamingTheCurrentLeafCreatesTheNextGeneration() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a", "v": 1])
        let second = try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "v": 2])
        #expect(try RevisionID(parsing: second.rev).generation == 2)
        #expect(try await temp.store.document(id: "a")["v"] == 2)
    }

    @Test func aStaleRevisionIsAConflictAndChangesNothing() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a", "v": 1])
        try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "v": 2])
        let before = try await temp.store.info()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "v": 3])
        }
        #expect(error?.code == .conflict)
        #expect(error?.message.hasPrefix("Document update conflict.") == true)
        #expect(error?.context.documentID == "a")
        #expect(try await temp.store.document(id: "a")["v"] == 2)
        #expect(try await temp.store.info().updateSeq == before.updateSeq)
    }

    @Test func writingAnExistingDocumentWithoutARevisionIsAConflict() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a", "v": 1])
        let error = await #expect(throws: CloudantError.self) { try await temp.store.put(["_id": "a", "v": 2]) }
        #expect(error?.code == .conflict)
    }

    @Test func aDeletedDocumentIsRecreatedAsAChildOfItsTombstone() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a", "v": 1])
        let tombstone = try await temp.store.delete(id: "a", rev: first.rev)
        #expect(try RevisionID(parsing: tombstone.rev).generation == 2)
        let deleted = await #expect(throws: CloudantError.self) { try await temp.store.document(id: "a") }
        #expect(deleted?.code == .notFound)
        #expect(deleted?.message == "deleted")

        // COUCHDB-292: while the whole document is deleted, naming any revision is a conflict.
        let named = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_rev": .string(tombstone.rev), "v": 2])
        }
        #expect(named?.code == .conflict)

        let recreated = try await temp.store.put(["_id": "a", "v": 3])
        #expect(try RevisionID(parsing: recreated.rev).generation == 3)
        #expect(try await temp.store.document(id: "a")["v"] == 3)
    }

    @Test func aTombstoneForANeverSeenIdIsGenerationOne() async throws {
        let temp = try TemporaryStore()
        let result = try await temp.store.put(["_id": "ghost", "_deleted": true])
        #expect(try RevisionID(parsing: result.rev).generation == 1)
        #expect(try await temp.store.info().deletedDocumentCount == 1)
    }

    @Test func deletingAMissingDocumentIsNotFound() async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) { try await temp.store.delete(id: "nope", rev: rev(1, "a")) }
        #expect(error?.code == .notFound)
    }

    @Test func documentsWithoutAnIdGetAGeneratedOne() async throws {
        let temp = try TemporaryStore()
        let result = try await temp.store.put(["v": 1])
        #expect(result.id == "generated-0001")
    }

    @Test(arguments: ["_bad", "_design/", "_local/", ""])
    func illegalIdsAreTypedErrorsAndWriteNothing(id: String) async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) { try await temp.store.put(["_id": .string(id), "v": 1]) }
        #expect(error?.code == .invalidInput)
        #expect((error?.category == .invalidInput && error?.context.field == "_id"))
        #expect(try await temp.store.info().updateSeq == 0)
    }

    @Test func aNonStringIdIsIllegal() async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) { try await temp.store.put(["_id": 7]) }
        #expect((error?.category == .invalidInput && error?.context.field == "_id"))
    }

    @Test(arguments: ["abc", "0-", "x-abc", "1-" + String(repeating: "z", count: 32), "-1-a"])
    func malformedRevisionsAreTypedErrors(revision: String) async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a"])
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.put(["_id": "a", "_rev": .string(revision)])
        }
        #expect(error?.code == .invalidInput)
        #expect(try await temp.store.info().updateSeq == 1)
    }

    @Test func anUnknownSpecialMemberIsADocumentValidationError() async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) { try await temp.store.put(["_id": "a", "_weird": 1]) }
        #expect(error?.code == .documentValidation)
        #expect(error?.message == "Bad special document member: _weird")
    }

    @Test func ignoredSpecialMembersAreDroppedAndPassThroughMembersKept() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a", "_conflicts": ["x"], "_access": ["u"], "v": 1])
        let doc = try await temp.store.document(id: "a")
        #expect(doc["_conflicts"] == nil)
        #expect(doc["_access"] == ["u"])
    }

    @Test func memberOrderIsKeptAsWritten() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "a", "zeta": 1, "alpha": 2, "mid": 3])
        #expect(try await temp.store.document(id: "a").keys == ["_id", "_rev", "zeta", "alpha", "mid"])
    }

    @Test func bulkDocsReportsConflictsPerDocumentAndWritesTheOthers() async throws {
        let temp = try TemporaryStore()
        let results = try await temp.store.bulkDocs([
            ["_id": "a", "v": 1], ["_id": "b", "_rev": .string(rev(1, "c"))], ["_id": "c"],
        ])
        #expect(results.count == 3)
        #expect(results[0].result?.id == "a")
        #expect(results[1].error?.code == .conflict)
        if case .failure(let id, _) = results[1] { #expect(id == "b") } else { Issue.record("b was written") }
        #expect(results[2].result?.id == "c")
        #expect(try await temp.store.allDocs().rows.count == 2)
    }

    @Test(arguments: [["_id": "_bad"] as JSONValue, "not an object", ["_id": "x", "_weird": 1]])
    func oneMalformedDocumentRejectsTheWholeBatch(bad: JSONValue) async throws {
        let temp = try TemporaryStore()
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.bulkDocs([["_id": "ok"], bad])
        }
        #expect(error?.context.itemIndex == 1)
        #expect(try await temp.store.info().updateSeq == 0)
    }

    @Test func anEditMayNameItsParentThroughRevisionsAlone() async throws {
        let temp = try TemporaryStore()
        let first = try RevisionID(parsing: try await temp.store.put(["_id": "a"]).rev)
        let second = try await temp.store.put([
            "_id": "a", "_revisions": ["start": 1, "ids": [.string(first.hash)]], "v": 2,
        ])
        #expect(second.rev.hasPrefix("2-"))
    }

    @Test func theSameIdTwiceInOneBatchConflictsOnTheSecond() async throws {
        let temp = try TemporaryStore()
        let results = try await temp.store.bulkDocs([["_id": "a", "v": 1], ["_id": "a", "v": 2]])
        #expect(results[0].result != nil)
        #expect(results[1].error?.code == .conflict)
    }

    @Test func committedWritesSurviveReopeningTheFile() async throws {
        let temp = try TemporaryStore()
        let written = try await temp.store.put(["_id": "a", "v": 1])
        let reopened = try temp.reopen()
        #expect(try await reopened.document(id: "a").rev == written.rev)
    }
}
