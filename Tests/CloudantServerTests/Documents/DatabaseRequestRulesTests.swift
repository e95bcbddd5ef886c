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

    /// `couch_db:validate_dbname/1` lets a name end in a shard timestamp: a `.` and ten or more digits.
    @Test func aNameMayEndInAShardTimestamp() async throws {
        try await withLiveServer { server in
            let client = server.admin
            #expect(try await client.send("PUT", "/notes.1733328668").status == 201)
            #expect(try await client.send("PUT", "/notes.1733328668/a", json: ["n": 1]).status == 201)
            #expect(try await client.send("GET", "/notes.1733328668").json["doc_count"] == 1)
            #expect(try await client.send("GET", "/_all_dbs").json.arrayValue?.contains("notes.1733328668") == true)
            for name in ["notes.173332866", "notes.1733328668x", "notes.a1733328668"] {
                try await client.send("PUT", "/\(name)").expectCouchError(
                    400, "illegal_database_name", DatabaseRegistryNames.illegalReason(name))
            }
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

    /// `chttpd_auth_request:db_authorization_check/1` opens the database as the user before any handler runs: a
    /// missing database is `404` and a user who is not a member `401`/`403`, whatever the method, content type,
    /// headers or body would have earned.
    @Test func aMissingDatabaseOrANonMemberIsAnsweredBeforeTheRequestIsChecked() async throws {
        try await withLiveDatabase { server, admin in
            let missing: [(String, String, JSONValue?, String?, [String: String])] = [
                ("POST", "/nodb/_bulk_docs", ["docs": [["a": 1]], "all_or_nothing": true], nil, [:]),
                ("GET", "/nodb/_bulk_docs", nil, nil, [:]),
                ("PATCH", "/nodb", nil, nil, [:]),
                ("POST", "/nodb/_revs_diff", nil, "text/plain", [:]),
                ("COPY", "/nodb/doc", nil, nil, [:]),
                ("COPY", "/nodb/doc", nil, nil, ["Destination": "_bad"]),
                ("PUT", "/nodb/doc/_x", nil, "text/plain", [:]),
                ("GET", "/nodb/_temp_view", nil, nil, [:]),
            ]
            for (method, path, json, contentType, headers) in missing {
                try await admin.send(method, path, json: json, contentType: contentType, headers: headers)
                    .expectCouchError(404, "not_found", "Database does not exist.")
            }
            // The database exists, and is admin-only: an anonymous request is unauthorized, a named user's forbidden.
            let user: JSONValue = ["name": "noa", "password": "pw", "roles": [], "type": "user"]
            #expect(try await admin.put("/_users/org.couchdb.user:noa", user).status == 201)
            let noa = server.client("noa", "pw")
            let refusals = [
                (server.anonymous, 401, "unauthorized", "You are not authorized to access this db."),
                (noa, 403, "forbidden", "You are not allowed to access this db."),
            ]
            for (client, status, error, reason) in refusals {
                try await client.send("POST", "/db/_bulk_docs", json: ["docs": [["a": 1]], "all_or_nothing": true])
                    .expectCouchError(status, error, reason)
                try await client.send("POST", "/db/_bulk_docs", json: ["nodocs": 1]).expectCouchError(status, error, reason)
                try await client.send("GET", "/db/_bulk_docs").expectCouchError(status, error, reason)
                try await client.send("POST", "/db/_revs_diff", body: Data("{}".utf8), contentType: "text/plain")
                    .expectCouchError(status, error, reason)
            }
            // The checks themselves still apply once the database is found and the user may use it.
            #expect(try await admin.send("GET", "/db/_bulk_docs").status == 405)
            #expect(try await admin.send("POST", "/db/_revs_diff", body: Data("{}".utf8), contentType: "text/plain").status == 415)
        }
    }

    /// `_all_dbs` and `_dbs_info` are an `_all_docs` of the databases (`handle_all_dbs_info_req/1`): the same
    /// arguments, checked as `validate_all_docs_args` checks them; a longer path is `404 missing`; `POST
    /// /_dbs_info` answers every key as given.
    @Test func allDbsAndDbsInfoTakeAllDocsArgumentsAndAnswerEveryKey() async throws {
        try await withLiveDatabase { _, admin in
            for path in ["/_all_dbs", "/_dbs_info"] {
                try await admin.get(path + "?reduce=true").expectCouchError(400, "query_parse_error", "Reduce is invalid for map-only views.")
                try await admin.get(path + "?group=true").expectCouchError(400, "query_parse_error", "Invalid use of grouping on a map view.")
                try await admin.get(path + "?keys=%5B%22db%22,%22x%22%5D&key=%22db%22").expectCouchError(
                    400, "query_parse_error", "`keys` is incompatible with `key`, `start_key` and `end_key`")
                try await admin.get(path + "/x").expectCouchError(404, "not_found", "missing")
            }
            #expect(try await admin.get("/_all_dbs?startkey_docid=db").json == ["db"])
            #expect(try await admin.get("/_all_dbs?start_key=%22_users%22&descending=true").json == ["_users", "_replicator"])
            let answer = try await admin.post("/_dbs_info", ["keys": ["db", "nope", 5]])
            let rows = answer.json.arrayValue ?? []
            #expect(rows.count == 3)
            #expect(rows.first?["key"] == "db" && rows.first?["info"]?["db_name"] == "db")
            #expect(Array(rows.dropFirst()) == [["key": "nope", "error": "not_found"], ["key": 5, "error": "not_found"]])
            try await admin.send("POST", "/_dbs_info/x", json: ["keys": ["db"]]).expectCouchError(404, "not_found", "missing")
        }
    }

    /// `db_req/2`'s `405` answers list what each resource serves, in CouchDB's words and order.
    @Test func methodNotAllowedListsWhatCouchDBLists() async throws {
        try await withLiveDatabase { _, admin in
            let expected = [
                ("PATCH", "/db", "DELETE,GET,HEAD,POST"), ("DELETE", "/db/_security", "PUT,GET"),
                ("DELETE", "/db/_revs_limit", "PUT,GET"), ("DELETE", "/db/_purged_infos_limit", "GET,PUT"),
            ]
            for (method, path, allowed) in expected {
                let answer = try await admin.send(method, path)
                answer.expectCouchError(405, "method_not_allowed", "Only \(allowed) allowed")
                #expect(answer.header("Allow") == allowed, "\(method) \(path)")
            }
        }
    }

    /// `instance_start_time` is the database's creation time (`mem3:shard_creation_time/1`), the same in its
    /// info and `_ensure_full_commit`, and kept when the server opens the database again.
    @Test func instanceStartTimeIsTheDatabasesCreationTime() async throws {
        try await withLiveDatabase { _, admin in
            let info = try await admin.get("/db").json
            let created = try #require(info["instance_start_time"]?.stringValue)
            #expect(created.count == 10 && created.allSatisfy(\.isNumber))
            let commit = try await admin.send("POST", "/db/_ensure_full_commit", contentType: "application/json")
            #expect(commit.json["instance_start_time"] == .string(created))
        }
    }

    /// `chttpd_db:create_db_req/2` checks `n`, `q`, `placement`, `engine` and `partitioned` in turn, then the
    /// name, then whether a partitioned database would be a system one (`couch_partition:validate_dbname/2`).
    @Test func creatingADatabaseChecksItsOptionsAsCouchDBDoes() async throws {
        try await withLiveServer { server in
            let admin = server.admin
            let placement = "The `placement` value should be in a format `zone:n`."
            for bad in ["bad", "a:0", "a:1:2", "a:x"] {
                try await admin.send("PUT", "/p1?placement=\(bad)").expectCouchError(400, "bad_request", placement)
            }
            try await admin.send("PUT", "/p1?placement=").expectCouchError(400, "bad_request", placement)
            #expect(try await admin.send("PUT", "/p1?placement=a:1,b:2").status == 201)
            try await admin.send("PUT", "/p2?engine=rocks").expectCouchError(400, "bad_request", "invalid_engine_extension")
            #expect(try await admin.send("PUT", "/p2?engine=couch").status == 201)
            // The shard options come first, then the name, then the partitioned check.
            try await admin.send("PUT", "/_bad?q=0&partitioned=true").expectCouchError(400, "bad_request", "The `q` value should be a positive integer.")
            try await admin.send("PUT", "/_bad?partitioned=true").expectCouchError(
                400, "illegal_database_name", DatabaseRegistryNames.illegalReason("_bad"))
            for system in ["_users", "_replicator", "x%2F_users", "x%2F_replicator"] {
                try await admin.send("PUT", "/\(system)?partitioned=true").expectCouchError(400, "bad_request", "Cannot partition a system database")
            }
            #expect(try await admin.send("PUT", "/x%2Fusers?partitioned=true").status == 201)
        }
    }

    /// `_bulk_get` wants its `docs` before it reads the query (`bulk_get_parse_doc_query/1` runs inside the
    /// `Docs ->` branch), and a partitioned database's id that is no `partition:id` fails before its `rev` is read.
    @Test func bulkGetChecksItsDocsFirstAndAnswersABadPartitionedIdWithoutItsRev() async throws {
        try await withLiveServer { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/parts?partitioned=true").status == 201)
            try await admin.post("/parts/_bulk_get?rev=1-a", [:]).expectCouchError(400, "bad_request", "Missing JSON list of 'docs'.")
            try await admin.post("/parts/_bulk_get?rev=1-a", ["docs": []]).expectCouchError(
                400, "bad_request", #""rev" query parameter is not acceptable"#)
            let answer = try await admin.send(
                "POST", "/parts/_bulk_get", json: ["docs": [["id": "plain", "rev": "1-abc"]]], headers: ["Accept": "application/json"])
            let error = answer.json["results"]?.arrayValue?.first?["docs"]?.arrayValue?.first?["error"]
            #expect(error?["id"] == "plain" && error?["rev"] == .null && error?["error"] == "illegal_docid", "\(answer.json)")
        }
    }
}

/// CouchDB's reason for an illegal database name, as the tests expect it.
enum DatabaseRegistryNames {
    static func illegalReason(_ name: String) -> String {
        "Name: '\(name)'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter."
    }
}
