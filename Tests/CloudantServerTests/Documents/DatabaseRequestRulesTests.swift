import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Database-level requests checked as `chttpd_db:db_req/2` and `couch_db` check them.
@Suite("Database requests: CouchDB's checks")
struct DatabaseRequestRulesTests {
    /// `couch_db:validate_doc_update/3` files a member's design document refusal under that document: the rest
    /// of the batch is written, so a member's replication goes on past a design document.
    @Test func aMembersBulkDocsWritesItsDocumentsAndRefusesOnlyItsDesignDocuments() async throws {
        try await withLiveDatabase { server, admin in
            let user: JSONValue = ["name": "mia", "password": "pw", "roles": [], "type": "user"]
            #expect(try await admin.put("/_users/org.couchdb.user:mia", user).status == 201)
            #expect(try await admin.put("/db/_security", ["members": ["names": ["mia"]]]).status == 200)
            let mia = server.client("mia", "pw")
            let answer = try await mia.post("/db/_bulk_docs", ["docs": [["_id": "plain"], ["_id": "_design/x"]]])
            #expect(answer.status == 201)
            let rows = answer.json.arrayValue ?? []
            #expect(rows.first?["ok"] == true && rows.first?["id"] == "plain")
            #expect(rows.last == ["id": "_design/x", "error": "forbidden", "reason": "You are not a db or server admin."])
            #expect(try await admin.get("/db/plain").status == 200)
            #expect(try await admin.get("/db/_design/x").status == 404)
            // A replicated batch answers only its failures.
            let replicated = try await mia.post(
                "/db/_bulk_docs",
                ["new_edits": false, "docs": [["_id": "r", "_rev": "1-abc"], ["_id": "_design/y", "_rev": "1-abc"]]])
            #expect(replicated.json.arrayValue?.map { $0["id"] } == ["_design/y"])
            #expect(try await admin.get("/db/r").status == 200)
        }
    }

    /// `POST /{db}` never reads `new_edits`: it is always an interactive edit.
    @Test func aPostToTheDatabaseIsAnInteractiveEditWhateverNewEditsSays() async throws {
        try await withLiveDatabase { _, client in
            try await client.post("/db?new_edits=false", ["_id": "planted", "_rev": "3-abc", "a": 1])
                .expectCouchError(409, "conflict", "Document update conflict.")
            #expect(try await client.get("/db/planted").status == 404)
        }
    }

    /// `couch_db:validate_names_and_roles/1` refuses `null` where an object or a list belongs, so a security
    /// object with `"members": null` cannot open a database to everyone.
    @Test func aSecurityObjectWithNullPrincipalsIsRefused() async throws {
        try await withLiveDatabase { _, client in
            let before = try await client.get("/db/_security").json
            let objects: [JSONValue] = [["admins": .null], ["members": .null], ["members": ["names": .null]], ["admins": ["roles": .null]]]
            for object in objects {
                let answer = try await client.put("/db/_security", object)
                #expect(answer.status == 400, "\(object)")
            }
            let stored = try await client.get("/db/_security").json
            #expect(stored == before)
        }
    }

    /// A name whose parts or file would be too long is CouchDB's `database_name_too_long`, never a failure to
    /// open the file.
    @Test func aDatabaseNameTooLongToStoreIsRefusedAsCouchDBRefusesOne() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let slashes = Array(repeating: "a", count: 100).joined(separator: "%2F")
            let long = String(repeating: "b", count: 239)
            for name in [slashes, long] {
                let shown = name.replacingOccurrences(of: "%2F", with: "/")
                try await client.send("PUT", "/\(name)").expectCouchError(
                    400, "database_name_too_long", "At least one path segment of `\(shown)` is too long.")
            }
            #expect(try await client.send("PUT", "/" + String(repeating: "c", count: 200)).status == 201)
        }
    }

    /// `POST /{db}/_missing_revs`: `_revs_diff`'s question, answered as `{"missing_revs": {id: [revs]}}`.
    @Test func missingRevsListsTheRevisionsADatabaseLacks() async throws {
        try await withLiveDatabase { _, client in
            let rev = try #require(try await client.put("/db/a", ["n": 1]).json["rev"]?.stringValue)
            let other = "2-" + String(repeating: "b", count: 32)
            let answer = try await client.post("/db/_missing_revs", ["a": [.string(rev), .string(other)], "b": ["1-abc"]])
            #expect(answer.json == ["missing_revs": ["a": [.string(other)], "b": ["1-abc"]]])
            #expect(try await client.post("/db/_missing_revs", ["a": [.string(rev)]]).json == ["missing_revs": [:]])
            #expect(try await client.get("/db/_missing_revs").status == 405)
        }
    }
}
