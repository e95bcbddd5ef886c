import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// Writes through the store get the revisions CouchDB gives the same writes (revisions CouchDB computed, or
/// Erlang's `term_to_binary` of CouchDB's term: `Tests/Fixtures/CouchDBRevisions/revisions.jsonl`).
@Suite("Revisions as CouchDB mints them")
struct CouchDBRevisionTests {
    static let empty = "1-967a00dff5e02add41819138abb3284d"

    @Test func aNewDocumentGetsCouchDBsFirstRevision() async throws {
        let temp = try TemporaryStore()
        #expect(try await temp.store.put(["_id": "e"]).rev == Self.empty)
        let album = try JSONValue(
            parsing: #"{"_id":"6e1295ed6c29495e54cc05947f18c8af","title":"There is Nothing Left to Lose","artist":"Foo Fighters"}"#)
        #expect(try await temp.store.put(try #require(album.objectValue)).rev == "1-4b39c2971c9ad54cb37e08fa02fec636")
        let movie = try JSONValue(
            parsing: #"{"_id":"m","type":"movie","title":"My Neighbour Totoro","year":1988,"director":"miyazaki","rating":8.2}"#)
        #expect(try await temp.store.put(try #require(movie.objectValue)).rev == "1-c7f3ec5e61c7a461d83da2d42f64a9e4")
    }

    @Test func anEditADeletionAndARecreationGetCouchDBsRevisions() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "d"])
        let edited = try await temp.store.put(["_id": "d", "_rev": .string(first.rev), "v": 2])
        #expect(edited.rev == "2-39d6b69a215997ebb2e6c0b28fbd5a08")

        let other = try await temp.store.put(["_id": "gone"])
        let deleted = try await temp.store.delete(id: "gone", rev: other.rev)
        #expect(deleted.rev == "2-eec205a9d413992850a6e32678485900")
        // Written again without `_rev`, a deleted document continues from its winning deleted revision.
        let recreated = try await temp.store.put(["_id": "gone", "back": true])
        #expect(recreated.rev == "3-be1ed9cbe924821f841fe1c3300fe2d9")
    }

    @Test func attachmentsCountInTheOrderTheDocumentListsThem() async throws {
        let temp = try TemporaryStore()
        let first = try await temp.store.put(["_id": "a"])
        let png = JSONValue.string(Base64.encode([0x89, 0x50, 0x4E, 0x47]))
        let bin = JSONValue.string(Base64.encode([0, 1]))
        let written = try await temp.store.put([
            "_id": "a", "_rev": .string(first.rev), "title": "two attachments", "n": 2,
            "_attachments": [
                "b.png": ["content_type": "image/png", "data": png],
                "a.bin": ["content_type": "application/octet-stream", "data": bin],
            ],
        ])
        #expect(written.rev == "2-90751ff092226c1e6b337fe8905c45b0")
        // Read back in the same order, as CouchDB keeps them.
        let document = try await temp.store.document(id: "a")
        #expect(document["_attachments"]?.objectValue?.keys == ["b.png", "a.bin"])
    }
}
