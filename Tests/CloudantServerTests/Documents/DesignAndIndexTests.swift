import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Design documents, indexes and database settings")
struct DesignAndIndexTests {
    @Test func designDocumentsAreStoredAsDocumentsAndListedByDesignDocs() async throws {
        try await withLiveDatabase { _, client in
            #expect(try await client.put("/db/_design/app", ["language": "query"]).status == 201)
            _ = try await client.put("/db/plain", ["v": 1])
            #expect(try await client.get("/db/_design/app").json["language"] == "query")
            let design = try await client.get("/db/_design_docs").json
            #expect(design["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["_design/app"])
            let all = try await client.get("/db/_all_docs").json
            #expect(all["rows"]?.arrayValue?.count == 2)
        }
    }

    @Test func indexesAreCreatedListedAndDeleted() async throws {
        try await withLiveDatabase { _, client in
            let created = try await client.post("/db/_index", ["index": ["fields": ["age"]], "ddoc": "by-age", "name": "age"])
            #expect(created.json == ["result": "created", "id": "_design/by-age", "name": "age"])
            let again = try await client.post("/db/_index", ["index": ["fields": ["age"]], "ddoc": "by-age", "name": "age"])
            #expect(again.json["result"] == "exists")
            let listing = try await client.get("/db/_index").json
            #expect(listing["indexes"]?.arrayValue?.first?["name"] == "_all_docs")
            #expect(try await client.delete("/db/_index/_design/by-age/json/age").json == ["ok": true])
            #expect(try await client.delete("/db/_index/by-age/json/age").status == 404)
        }
    }

    @Test func securityDefaultsToAdminOnlyAndRevsLimitRoundTrips() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.send("PUT", "/db")
            #expect(try await client.get("/db/_security").json == ["members": ["roles": ["_admin"]], "admins": ["roles": ["_admin"]]])
            #expect(try await client.put("/db/_security", ["admins": ["names": "bob"]]).status == 400)
            #expect(try await client.send("PUT", "/db/_revs_limit", body: Data("7".utf8)).json == ["ok": true])
            #expect(try await client.get("/db/_revs_limit").json == 7)
            #expect(try await client.send("PUT", "/db/_revs_limit", body: Data("0".utf8)).status == 400)
        }
    }
}
