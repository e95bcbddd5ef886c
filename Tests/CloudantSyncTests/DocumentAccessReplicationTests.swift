import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Testing

/// Replication honours per-document access lists: a member's pull brings only the documents that name them
/// (tombstones included), and their push cannot reach documents that do not.
@Suite("Replication with per-document access")
struct DocumentAccessReplicationTests {
    private func send(_ method: String, _ url: String, _ body: JSONValue?, user: String = "admin:s3cret") async throws -> Int {
        let port = try #require(URL(string: url)?.port)
        let origin = "http://127.0.0.1:\(port)"
        let credentials = user.split(separator: ":", maxSplits: 1).map(String.init)
        let client = TestClient(baseURL: origin, user: (credentials[0], credentials[1]))
        return try await client.send(method, String(url.dropFirst(origin.count)), json: body).status
    }

    @Test func aPullBringsOnlyListedDocumentsAndAPushCannotTakeOverHiddenOnes() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-access-sync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try CouchServer(
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: 0, directory: StoreDirectory(path: folder.appendingPathComponent("server").path),
                admin: ServerAdmin(name: "admin", password: "s3cret"), passwordIterations: 1_000))
        let running = Task { try await server.run() }
        defer { running.cancel() }
        let base = try await server.url()
        for name in ["alice", "bob"] {
            let user: JSONValue = ["name": .string(name), "password": .string("pw-\(name)"), "roles": ["staff"], "type": "user"]
            #expect(try await send("PUT", "\(base)/_users/org.couchdb.user:\(name)", user) == 201)
        }
        #expect(try await send("PUT", "\(base)/clinic", nil) == 201)
        let security: JSONValue = ["members": ["roles": ["staff"]], "document_access": true]
        #expect(try await send("PUT", "\(base)/clinic/_security", security) == 200)
        for index in 0..<10 {
            #expect(try await send("PUT", "\(base)/clinic/a-\(index)", ["secret": "alice"], user: "alice:pw-alice") == 201)
        }
        #expect(try await send("PUT", "\(base)/clinic/shared", ["access": ["names": ["alice", "bob"]]], user: "alice:pw-alice") == 201)
        #expect(try await send("PUT", "\(base)/clinic/gone", ["access": ["names": ["alice", "bob"]]], user: "alice:pw-alice") == 201)

        let asBob = try HTTPPeer(url: URL(string: base + "/clinic")!, authentication: .basic(user: "bob", password: "pw-bob"))
        let device = try DocumentStore.open(name: "bob-device", in: StoreDirectory(path: folder.appendingPathComponent("device").path))
        _ = try await Replicator(source: asBob, target: LocalPeer(device)).run()
        #expect(try await device.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["gone", "shared"])

        // Alice deletes a shared document: bob's next pull carries the deletion (the tombstone kept the list).
        let gone = try await device.document(id: "gone")
        #expect(try await send("DELETE", "\(base)/clinic/gone?rev=\(gone["_rev"]?.stringValue ?? "")", nil, user: "alice:pw-alice") == 200)
        _ = try await Replicator(source: asBob, target: LocalPeer(device)).run()
        #expect(try await device.allDocs().rows.compactMap { $0["id"]?.stringValue } == ["shared"])

        // Bob's device writes over one of alice's ids and adds its own document; the push delivers his, and the
        // takeover is refused (counted as a failed write) while alice's document stays hers.
        try await device.put(["_id": "a-3", "secret": "bob was here", "access": ["names": ["bob"]]])
        try await device.put(["_id": "b-1", "access": ["names": ["bob"]]])
        let pushed = try await Replicator(source: LocalPeer(device), target: asBob).run()
        #expect(pushed.docWriteFailures == 1)
        let asAlice = try HTTPPeer(url: URL(string: base + "/clinic")!, authentication: .basic(user: "alice", password: "pw-alice"))
        let aliceDevice = try DocumentStore.open(name: "alice-device", in: StoreDirectory(path: folder.appendingPathComponent("device").path))
        _ = try await Replicator(source: asAlice, target: LocalPeer(aliceDevice)).run()
        #expect(try await aliceDevice.document(id: "a-3")["secret"] == "alice")
        await server.shutdown()
    }
}
