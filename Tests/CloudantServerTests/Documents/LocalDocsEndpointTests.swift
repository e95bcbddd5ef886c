import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// `/{db}/_local_docs`, as CouchDB's `couch_mrview` lists the `_local` namespace.
@Suite("_local_docs")
struct LocalDocsEndpointTests {
    private static func ids(_ answer: HTTPAnswer) -> [String] {
        (answer.json["rows"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// Runs `body` with an admin client of a live server whose database `db` holds the local documents
    /// `_local/foo` and `_local/foo2`.
    private static func withLocalDocuments(_ body: (TestClient) async throws -> Void) async throws {
        try await withLiveDatabase { _, client in
            _ = try await client.put("/db/_local/foo", ["bar": "baz"])
            _ = try await client.put("/db/_local/foo2", ["bar": "baz2"])
            try await body(client)
        }
    }

    @Test func listsLocalDocumentsWithNullTotalsAndTheirRevisions() async throws {
        try await Self.withLocalDocuments { client in
            _ = try await client.put("/db/regular", ["v": 1])
            let all = try await client.get("/db/_local_docs")
            #expect(all.status == 200)
            #expect(all.json["total_rows"] == .null)
            #expect(all.json["offset"] == .null)
            #expect(all.json["rows"]?.arrayValue?.first == ["id": "_local/foo", "key": "_local/foo", "value": ["rev": "0-1"]])
            #expect(Self.ids(all) == ["_local/foo", "_local/foo2"])
            let docs = try await client.get("/db/_local_docs?include_docs=true&descending=true&limit=1")
            #expect(Self.ids(docs) == ["_local/foo2"])
            #expect(docs.json["rows"]?.arrayValue?.first?["doc"]?["bar"] == "baz2")
            let range = try await client.get("/db/_local_docs?startkey=%22_local/foo0%22")
            #expect(Self.ids(range) == ["_local/foo2"])
            #expect(try await client.get("/db/_local_docs?update_seq=true").json["update_seq"] == .null)
        }
    }

    @Test func keysAreReadFromTheQueryOrTheBodyAndTheQueryWins() async throws {
        try await Self.withLocalDocuments { client in
            let byQuery = try await client.get("/db/_local_docs?keys=%5B%22_local/foo%22,%22_local/foo2%22%5D")
            #expect(Self.ids(byQuery) == ["_local/foo", "_local/foo2"])
            #expect(Self.ids(try await client.post("/db/_local_docs", [:])) == ["_local/foo", "_local/foo2"])
            let limited = try await client.post("/db/_local_docs", ["keys": ["_local/foo", "_local/foo2"], "limit": 1])
            #expect(Self.ids(limited) == ["_local/foo"])
            let both = try await client.post("/db/_local_docs?limit=0", ["keys": ["_local/foo", "_local/foo2"], "limit": 2])
            #expect(both.json["rows"] == [])
            let missing = try await client.post("/db/_local_docs", ["keys": ["_local/none", "regular"]])
            #expect(missing.json["rows"] == [["key": "_local/none", "error": "not_found"]])
        }
    }
}
