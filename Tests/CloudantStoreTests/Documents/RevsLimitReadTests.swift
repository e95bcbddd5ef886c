import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

/// A document read with `revs=true` shows its path cut to the database's current `_revs_limit`, as CouchDB's
/// `couch_db:make_doc` cuts it, even when the limit was lowered after the revisions were written.
@Suite("Revision paths read under _revs_limit")
struct RevsLimitReadTests {
    @Test func aLoweredRevsLimitShowsAtOnceOnReadAndTheTreeKeepsItsHistoryUntilTheNextWrite() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        var rev = try await store.put(["_id": "bar", "count": 0]).rev
        for count in 1..<6 { rev = try await store.put(["_id": "bar", "_rev": .string(rev), "count": .number(JSONNumber(count))]).rev }
        #expect(try await store.document(id: "bar", options: ReadOptions(revs: true))["_revisions"]?["ids"]?.arrayValue?.count == 6)

        try await store.setRevsLimit(5)
        let read = try await store.document(id: "bar", options: ReadOptions(revs: true))
        #expect(read["_revisions"]?["start"] == 6 && read["_revisions"]?["ids"]?.arrayValue?.count == 5)
        // The newest five, newest first.
        #expect(read["_revisions"]?["ids"]?.arrayValue?.first == .string(String(rev.split(separator: "-")[1])))
        // `_revs_info` reads the tree as it is (CouchDB builds it from the tree, not the cut path).
        let info = try await store.document(id: "bar", options: ReadOptions(revsInfo: true))
        #expect(info["_revs_info"]?.arrayValue?.count == 6)

        try await store.compact()
        #expect(try await store.document(id: "bar", options: ReadOptions(revs: true))["_revisions"]?["ids"]?.arrayValue?.count == 5)
    }

    /// An edit that takes a history past the limit stems its oldest revision, and that revision's kept body
    /// goes with it: only the revisions still in the tree keep bodies.
    @Test func anEditPastTheRevsLimitDropsTheBodiesOfTheRevisionsItStems() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        try await store.setRevsLimit(3)
        var written: [String] = []
        var rev = try await store.put(["_id": "bar", "count": 0]).rev
        written.append(rev)
        for count in 1..<6 {
            rev = try await store.put(["_id": "bar", "_rev": .string(rev), "count": .number(JSONNumber(count))]).rev
            written.append(rev)
        }
        // Revisions 4 and 5 keep their bodies beside the winner, 6; 1 to 3 are forgotten with theirs.
        #expect(try await store.storageStats().otherRevisionBodies == 2)
        #expect(try await store.document(id: "bar", options: ReadOptions(revsInfo: true))["_revs_info"]?.arrayValue?.count == 3)
        #expect(try await store.document(id: "bar", options: ReadOptions(rev: written[3]))["count"] == 3)
        await #expect(throws: CloudantError.self) { try await store.document(id: "bar", options: ReadOptions(rev: written[2])) }
    }
}
