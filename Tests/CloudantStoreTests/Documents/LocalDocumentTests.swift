import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Local documents")
struct LocalDocumentTests {
    @Test func localDocumentsHaveZeroGenerationRevisionsAndNoHistory() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "_local/checkpoint", "seq": 1])
        #expect(first.rev == "0-1")
        let second = try await temp.store.putLocal(id: "_local/checkpoint", body: ["seq": 2], rev: first.rev)
        #expect(second.rev == "0-2")
        #expect(try await temp.store.document(id: "_local/checkpoint") == ["_id": "_local/checkpoint", "_rev": "0-2", "seq": 2])
    }

    @Test func aStaleLocalRevisionIsAConflictLikePouchDB() async throws {
        let temp = try TemporaryStore()
        try await temp.store.putLocal(id: "_local/x", body: ["v": 1])
        let error = await #expect(throws: CloudantError.self) {
            try await temp.store.putLocal(id: "_local/x", body: ["v": 2])
        }
        #expect(error?.code == .conflict)
    }

    @Test func localDocumentsStayOutOfChangesAndAllDocs() async throws {
        let temp = try TemporaryStore()
        try await temp.store.putLocal(id: "_local/x", body: ["v": 1])
        try await temp.store.put(["_id": "a"])
        #expect(try await temp.store.changes().results.map(\.id) == ["a"])
        #expect(try await temp.store.allDocs().totalRows == 1)
        #expect(try await temp.store.info().updateSeq == 1)
    }

    @Test func localDocumentsWrittenInABatchStayLocal() async throws {
        let temp = try TemporaryStore()
        let results = try await temp.store.bulkDocs([["_id": "_local/ck", "v": 1], ["_id": "a"]])
        #expect(results[0].result?.rev == "0-1")
        #expect(try await temp.store.changes().results.map(\.id) == ["a"])
        #expect(try await temp.store.allDocs().totalRows == 1)
        #expect(try await temp.store.document(id: "_local/ck")["v"] == 1)
    }

    @Test func putWithDeletedTrueDeletesALocalDocument() async throws {
        let temp = try TemporaryStore()
        let written = try await temp.store.put(["_id": "_local/c", "v": 1])
        let deleted = try await temp.store.put(["_id": "_local/c", "_rev": .string(written.rev), "_deleted": true])
        #expect(deleted.rev == "0-0")
        let error = await #expect(throws: CloudantError.self) { try await temp.store.localDocument(id: "_local/c") }
        #expect(error?.code == .notFound)
    }

    @Test func deletingALocalDocumentNeedsItsRevision() async throws {
        let temp = try TemporaryStore()
        let written = try await temp.store.putLocal(id: "_local/x", body: [:])
        #expect(try await temp.store.deleteLocal(id: "_local/x", rev: written.rev).rev == "0-0")
        let error = await #expect(throws: CloudantError.self) { try await temp.store.localDocument(id: "_local/x") }
        #expect(error?.code == .notFound)
    }

    @Test func aLastWriterWinsDeleteRemovesALocalDocumentWhateverRevisionIsStored() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.putLocal(id: "_local/import", body: ["n": 1])
        try await temp.store.putLocal(id: "_local/import", body: ["n": 2], rev: first.rev)
        // The revision named is behind the stored one: a conflict, unless the last writer wins.
        let stale = await #expect(throws: CloudantError.self) { try await temp.store.deleteLocal(id: "_local/import", rev: first.rev) }
        #expect(stale?.code == .conflict)
        #expect(try await temp.store.deleteLocal(id: "_local/import", rev: first.rev, lastWriterWins: true).rev == "0-0")
        let gone = await #expect(throws: CloudantError.self) { try await temp.store.localDocument(id: "_local/import") }
        #expect(gone?.code == .notFound)
        let missing = await #expect(throws: CloudantError.self) {
            try await temp.store.deleteLocal(id: "_local/import", rev: nil, lastWriterWins: true)
        }
        #expect(missing?.code == .notFound)
    }
}
