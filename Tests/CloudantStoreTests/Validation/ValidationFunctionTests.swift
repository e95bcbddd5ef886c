import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("validate_doc_update on every write path")
struct ValidationFunctionTests {
    /// Records what it was called with in the document it refuses, and refuses by `kind`.
    let ddoc: JSONObject = [
        "_id": "_design/rules",
        "validate_doc_update": """
            function(newDoc, oldDoc, userCtx, secObj) {
              if (newDoc.kind === 'forbidden') throw({forbidden: 'not here ' + (oldDoc ? oldDoc._rev : 'new') + ' ' + userCtx.db});
              if (newDoc.kind === 'secret' && userCtx.roles.indexOf('_admin') < 0) throw({unauthorized: 'admins only'});
              if (newDoc.kind === 'other') throw({something: 'else'});
              if (newDoc._deleted && oldDoc && oldDoc.locked) throw({forbidden: 'locked'});
              if (newDoc.check_history && (!newDoc._revisions || newDoc._revisions.ids.length !== 1)) throw({forbidden: 'history'});
              if (newDoc.owner && secObj.members && secObj.members.names.indexOf(newDoc.owner) < 0) throw({forbidden: 'not a member'});
            }
            """,
    ]

    func refusal(_ body: () async throws -> Void) async -> CloudantError? {
        do {
            try await body()
            return nil
        } catch let error as CloudantError {
            return error
        } catch {
            return CloudantError(.invalidInput, "\(error)")
        }
    }

    @Test func interactiveWritesAreValidatedWithTheRevisionTheyReplace() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let first = try await temp.store.put(["_id": "a", "kind": "ok"])
        let refused = await refusal { try await temp.store.put(["_id": "a", "_rev": .string(first.rev), "kind": "forbidden"]) }
        #expect(refused?.code == .validationForbidden)
        #expect(refused?.message == "not here \(first.rev) views")
        let new = await refusal { try await temp.store.put(["_id": "b", "kind": "forbidden"]) }
        #expect(new?.message == "not here new views")
        #expect(await refusal { try await temp.store.put(["_id": "c", "kind": "other"]) }?.code == .validationFailed)
        // Nothing of a refused write was stored.
        #expect(try await temp.store.document(id: "a")["kind"] == "ok")
        #expect(await refusal { _ = try await temp.store.document(id: "b") }?.code == .notFound)
    }

    @Test func theNewRevisionCarriesTheRevisionItEditsInRevisions() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let first = try await temp.store.put(["_id": "h"])
        try await temp.store.put(["_id": "h", "_rev": .string(first.rev), "check_history": true])
    }

    @Test func userContextAndSecurityObjectComeFromTheWriter() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        try await temp.store.put(["_id": "s1", "kind": "secret"])
        let nurse = WriterIdentity(name: "ada", roles: ["nurse"], securityObject: ["members": ["names": ["ada"]]])
        let refused = await refusal {
            try await DocumentStore.$writer.withValue(nurse) { _ = try await temp.store.put(["_id": "s2", "kind": "secret"]) }
        }
        #expect(refused?.code == .validationUnauthorized && refused?.message == "admins only")
        try await DocumentStore.$writer.withValue(nurse) { _ = try await temp.store.put(["_id": "m1", "owner": "ada"]) }
        let stranger = await refusal {
            try await DocumentStore.$writer.withValue(nurse) { _ = try await temp.store.put(["_id": "m2", "owner": "bob"]) }
        }
        #expect(stranger?.message == "not a member")
    }

    @Test func bulkDocsReportsEachRefusalAndWritesTheRest() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let results = try await temp.store.bulkDocs([["_id": "ok1"], ["_id": "no", "kind": "forbidden"], ["_id": "ok2"]])
        #expect(results.map { if case .ok = $0 { true } else { false } } == [true, false, true])
        if case .failure(_, let error) = results[1] { #expect(error.code == .validationForbidden) }
    }

    /// A batch is validated with the functions there were when it began, as CouchDB's database handle loads
    /// them once (`couch_db:validate_doc_update`): a design document written in a batch governs the batches
    /// after it, not the rest of its own, and one deleted in a batch still validates the rest of that batch.
    /// With no function at all, new documents take the fast insert.
    @Test func aBatchIsValidatedWithTheFunctionsThereWereWhenItBegan() async throws {
        let temp = try viewStore()
        let before = try await temp.store.bulkDocs([["_id": "early", "kind": "forbidden"], ["_id": "early2"]])
        #expect(before.allSatisfy { if case .ok = $0 { true } else { false } })
        let results = try await temp.store.bulkDocs([
            ["_id": "a1", "kind": "forbidden"], .object(ddoc), ["_id": "a2", "kind": "forbidden"], ["_id": "a3"],
        ])
        #expect(results.map { if case .ok = $0 { true } else { false } } == [true, true, true, true])
        let later = try await temp.store.bulkDocs([["_id": "b1"], ["_id": "b2", "kind": "forbidden"]])
        #expect(later.map { if case .ok = $0 { true } else { false } } == [true, false])
        let replicated = try await temp.store.bulkDocs(
            [["_id": "r1", "_rev": "1-967a00dff5e02add41819138abb3284d", "kind": "forbidden"]], newEdits: false)
        #expect(replicated.map { if case .ok = $0 { true } else { false } } == [false])
        let rev = try await temp.store.document(id: "_design/rules")["_rev"]
        let ended = try await temp.store.bulkDocs([
            ["_id": "c1", "kind": "forbidden"], ["_id": "_design/rules", "_rev": rev ?? .null, "_deleted": true],
            ["_id": "c2", "kind": "forbidden"],
        ])
        #expect(ended.map { if case .ok = $0 { true } else { false } } == [false, true, false])
        let after = try await temp.store.bulkDocs([["_id": "d1", "kind": "forbidden"]])
        #expect(after.map { if case .ok = $0 { true } else { false } } == [true])
    }

    @Test func replicatedRevisionsAreValidatedToo() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let results = try await temp.store.bulkDocs(
            [["_id": "r", "_rev": "1-aaaa", "kind": "forbidden"], ["_id": "r2", "_rev": "1-bbbb"]], newEdits: false)
        #expect(results.count == 1)
        await #expect(throws: CloudantError.self) { _ = try await temp.store.document(id: "r") }
        #expect(try await temp.store.document(id: "r2")["_rev"] == "1-bbbb")
    }

    @Test func aReplicatedRevisionTheBatchMakesInternalOnAnExistingDocumentIsNeitherValidatedNorStored() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let (a, b, c) = (String(repeating: "a", count: 32), String(repeating: "b", count: 32), String(repeating: "c", count: 32))
        #expect(try await temp.store.bulkDocs([["_id": "d", "_rev": .string("1-\(a)")]], newEdits: false).isEmpty)
        // 2-b would be refused, but 3-c descends from it: only 3-c is a leaf of the merged batch, and 3-c is
        // validated against 1-a, the nearest revision with a body (`make_first_doc_on_disk`).
        let failures = try await temp.store.bulkDocs(
            [
                ["_id": "d", "_rev": .string("2-\(b)"), "_revisions": ["start": 2, "ids": [.string(b), .string(a)]], "kind": "forbidden"],
                ["_id": "d", "_rev": .string("3-\(c)"), "_revisions": ["start": 3, "ids": [.string(c), .string(b), .string(a)]], "v": 3],
            ], newEdits: false)
        #expect(failures.isEmpty)
        let winner = try await temp.store.document(id: "d", options: ReadOptions(revsInfo: true))
        #expect(winner["v"] == 3)
        #expect(winner["_revs_info"]?.arrayValue?.map { $0["status"] } == ["available", "missing", "available"])
        let gone = await refusal { _ = try await temp.store.document(id: "d", options: ReadOptions(rev: "2-\(b)")) }
        #expect(gone?.code == .notFound)
        // A document new to the store keeps every revision of its batch (CouchDB's `not_found` branch).
        let fresh = try await temp.store.bulkDocs(
            [
                ["_id": "n", "_rev": .string("2-\(b)"), "_revisions": ["start": 2, "ids": [.string(b), .string(a)]], "v": 2],
                ["_id": "n", "_rev": .string("3-\(c)"), "_revisions": ["start": 3, "ids": [.string(c), .string(b), .string(a)]], "v": 3],
            ], newEdits: false)
        #expect(fresh.isEmpty)
        #expect(try await temp.store.document(id: "n", options: ReadOptions(rev: "2-\(b)"))["v"] == 2)
        // ... and validates each against no old document, whatever the batch brought before it (`fun() -> nil end`).
        let refused = try await temp.store.bulkDocs(
            [
                ["_id": "f", "_rev": .string("1-\(a)")],
                ["_id": "f", "_rev": .string("2-\(b)"), "_revisions": ["start": 2, "ids": [.string(b), .string(a)]], "kind": "forbidden"],
            ], newEdits: false)
        #expect(refused.count == 1 && refused.first?.error?.message == "not here new views")
    }

    @Test func deletesAreValidatedWithTheDocumentTheyDelete() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let locked = try await temp.store.put(["_id": "l", "locked": true])
        #expect(await refusal { try await temp.store.delete(id: "l", rev: locked.rev) }?.message == "locked")
    }

    @Test func attachmentWritesAreValidated() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        let stored = try await temp.store.put(["_id": "att", "kind": "forbidden-later"])
        var document = try await temp.store.document(id: "att")
        document["kind"] = "forbidden"
        document["_attachments"] = ["a.txt": ["content_type": "text/plain", "data": .string(Base64.encode(Array("hi".utf8)))]]
        #expect(await refusal { try await temp.store.put(document) }?.code == .validationForbidden)
        let content = AsyncStream<[UInt8]> { continuation in
            continuation.yield(Array("hello".utf8))
            continuation.finish()
        }
        _ = try await temp.store.putAttachment("b.txt", documentID: "att", rev: stored.rev, contentType: "text/plain", content: content)
    }

    @Test func designAndLocalDocumentsAreNotValidatedByTheFunctions() async throws {
        let temp = try viewStore()
        try await temp.store.put(ddoc)
        try await temp.store.put(["_id": "_design/other", "kind": "forbidden"])
        try await temp.store.put(["_id": "_local/x", "kind": "forbidden"])
    }

    @Test func aDesignDocumentWhoseFunctionsDoNotCompileIsRefused() async throws {
        let temp = try viewStore()
        let refused = await refusal {
            try await temp.store.put(["_id": "_design/bad", "views": ["v": ["map": "function(doc) { emit(doc._id, ; }"]]])
        }
        #expect(refused?.code == .compilationError)
        #expect(refused?.message.hasPrefix("Compilation of the map function in the 'v' view failed: SyntaxError") == true)
        let reduce = await refusal {
            try await temp.store.put(["_id": "_design/bad", "views": ["v": ["map": "function(doc) {}", "reduce": "function(k, v) { return ; ; ) }"]]])
        }
        #expect(reduce?.message.hasPrefix("Compilation of the reduce function in the 'v' view failed") == true)
    }

    @Test func withoutAnEngineNothingIsValidated() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(ddoc)
        try await temp.store.put(["_id": "a", "kind": "forbidden"])
    }
}
