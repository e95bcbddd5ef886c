import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// A served database whose documents expire: the setting lives in the file, so the server enforces what
/// another process set.
@Suite("Expiring documents over HTTP")
struct ExpiryEndpointTests {
    @Test func anExpiredDocumentIsGoneFromEveryReadPathOfTheServer() async throws {
        try await withLiveDatabase { server, client in
            // Another process (here another store object on the same file) turns expiry on.
            let other = try DocumentStore.open(name: "db", in: StoreDirectory(path: server.folder))
            try await other.setExpiryField("expiresAt")
            try other.close()

            _ = try await client.put("/db/past", ["expiresAt": "2001-01-01T00:00:00Z"])
            _ = try await client.put("/db/future", ["expiresAt": "2999-01-01T00:00:00Z"])
            #expect(try await client.get("/db/past").status == 404)
            let all = try await client.get("/db/_all_docs").json
            #expect(all["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["future"])
            let found = try await client.post("/db/_find", ["selector": [:]]).json
            #expect(found["docs"]?.arrayValue?.compactMap { $0["_id"]?.stringValue } == ["future"])
            let changes = try await client.get("/db/_changes").json
            #expect(changes["results"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["future"])
            let info = try await client.get("/db").json
            #expect(info["doc_count"] == 1 && info["doc_del_count"] == 0 && info["purge_seq"]?.stringValue.flatMap(UpdateSequence.parse) == 1)
        }
    }
}
