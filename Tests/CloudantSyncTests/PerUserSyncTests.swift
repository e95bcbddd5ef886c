import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Testing

/// A device syncing with its user's private database over the replication protocol, logged in as that user
/// (no admin rights): checkpoints, `_revs_diff`, `_bulk_docs`, `_bulk_get` and `_changes` all as a member.
@Suite("A device store syncs with its per-user database")
struct PerUserSyncTests {
    @Test func aDeviceSyncsBothWaysWithItsUsersDatabaseAsThatUserAndOthersCannotReachIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-peruser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder.appendingPathComponent("server").path),
            admin: ServerAdmin(name: "admin", password: "s3cret"), passwordIterations: 1_000)
        configuration.perUserDatabases = PerUserDatabases()
        let server = try CouchServer(configuration: configuration)
        let running = Task { try await server.run() }
        let base = try await server.url()
        defer { running.cancel() }

        let admin = TestClient(baseURL: base, user: ("admin", "s3cret"))
        for name in ["alice", "mallory"] {
            let user: JSONValue = ["name": .string(name), "password": .string("pw-\(name)"), "roles": [], "type": "user"]
            #expect(try await admin.put("/_users/org.couchdb.user:\(name)", user).status == 201)
        }
        let databaseURL = URL(string: base + "/" + PerUserDatabases().databaseName(forUser: "alice"))!
        let asAlice = try HTTPPeer(url: databaseURL, authentication: .session(user: "alice", password: "pw-alice"))

        let phone = try DocumentStore.open(name: "phone", in: StoreDirectory(path: folder.appendingPathComponent("phone").path))
        let tablet = try DocumentStore.open(name: "tablet", in: StoreDirectory(path: folder.appendingPathComponent("tablet").path))
        for index in 0..<20 { try await phone.put(["_id": .string("reading-\(index)"), "bpm": .number(JSONNumber(60 + index))]) }
        let pushed = try await Replicator(source: LocalPeer(phone), target: asAlice).run()
        #expect(pushed.docsWritten == 20)
        try await tablet.put(["_id": "note", "text": "from the tablet"])
        _ = try await Replicator.sync(LocalPeer(tablet), asAlice)
        _ = try await Replicator.sync(LocalPeer(phone), asAlice)
        #expect(try await phone.document(id: "note")["text"] == "from the tablet")
        #expect(try await tablet.document(id: "reading-19")["bpm"] == 79)

        // A second sync with nothing new writes nothing: the checkpoints (as alice) held.
        let again = try await Replicator(source: LocalPeer(phone), target: asAlice).run()
        #expect(again.docsWritten == 0)

        let asMallory = try HTTPPeer(url: databaseURL, authentication: .basic(user: "mallory", password: "pw-mallory"))
        let stolen = try DocumentStore.open(name: "stolen", in: StoreDirectory(path: folder.appendingPathComponent("stolen").path))
        await #expect(throws: (any Error).self) { try await Replicator(source: asMallory, target: LocalPeer(stolen)).run() }
        #expect(try await stolen.changes().results.isEmpty)
        await server.shutdown()
    }
}
