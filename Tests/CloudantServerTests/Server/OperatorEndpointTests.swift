import CloudantCore
import CloudantJavaScript
import CloudantTestSupport
import Foundation
import Testing

/// The operator's API as CouchDB 3.5's `chttpd_node`, `chttpd_misc` and `chttpd_cors` serve it.
@Suite("Operator endpoints")
struct OperatorEndpointTests {
    @Test func membershipAndTheLocalNodeNameTheOneNode() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            let nodes: JSONValue = ["nonode@nohost"]
            let membership: JSONValue = ["all_nodes": nodes, "cluster_nodes": nodes]
            #expect(try await client.get("/_membership").json == membership)
            let name: JSONValue = ["name": "nonode@nohost"]
            #expect(try await client.get("/_node/_local").json == name)
            let missing: JSONValue = ["error": "not_found", "reason": "no such node: other@host"]
            #expect(try await client.get("/_node/other@host/_config").json == missing)
            let none: JSONValue = []
            #expect(try await client.get("/_active_tasks").json == none)
        }
    }

    @Test func aConfiguredNodeNameIsTheOnlyNodeTheServerAnswersFor() async throws {
        try await withLiveServer({ $0.nodeName = "node1@127.0.0.1" }) { server in
            let client = server.admin
            let nodes: JSONValue = ["node1@127.0.0.1"]
            #expect(try await client.get("/_membership").json == ["all_nodes": nodes, "cluster_nodes": nodes])
            #expect(try await client.get("/_node/_local").json == ["name": "node1@127.0.0.1"])
            #expect(try await client.get("/_node/node1@127.0.0.1/_config/log/level").json == "info")
            let written = try await client.send(
                "PUT", "/_node/node1@127.0.0.1/_config/log/level", json: "debug", headers: ["X-Couch-Persist": "false"])
            #expect(written.json == "info")
            #expect(try await client.get("/_node/nonode@nohost/_config").status == 404)
        }
    }

    /// `chttpd_misc:handle_reload_query_servers_req/1`: a server admin's `POST` with a JSON content type
    /// answers `{"ok": true}` and design functions run afresh; other methods are `405`, other content types
    /// `415`, anyone else is refused.
    @Test func reloadingTheQueryServersAnswersAsCouchDBAndViewsStillRun() async throws {
        let engine = JavaScriptEngine(configuration: .init(timeLimit: .seconds(60), maximumInstances: 2, log: { _ in }))
        try await withLiveServer({ $0.designFunctions = engine }) { server in
            let admin = server.admin
            _ = try await admin.send("PUT", "/db")
            _ = try await admin.put("/db/a", ["n": 1])
            _ = try await admin.put("/db/_design/d", ["views": ["v": ["map": "function(doc) { emit(doc._id, doc.n); }"]]])
            #expect(try await admin.get("/db/_design/d/_view/v").json["total_rows"] == 1)
            let reloaded = try await admin.send("POST", "/_reload_query_servers", json: [:])
            #expect(reloaded.status == 200)
            #expect(reloaded.json == ["ok": true])
            _ = try await admin.put("/db/b", ["n": 2])
            #expect(try await admin.get("/db/_design/d/_view/v").json["total_rows"] == 2)
            let get = try await admin.send("GET", "/_reload_query_servers")
            get.expectCouchError(405, "method_not_allowed", "Only POST allowed")
            let text = try await admin.send("POST", "/_reload_query_servers", body: Data("{}".utf8), contentType: "text/plain")
            #expect(text.status == 415)
            let anonymous = try await server.anonymous.send("POST", "/_reload_query_servers", json: [:])
            #expect(anonymous.status == 401)
        }
    }

    /// `chttpd_node:handle_node_req/1`: `/_node` alone is an incomplete path, and `/_node/{node}` alone is the
    /// node's own API at its root, the welcome (`/_node/_local` alone names the node).
    @Test func nodePathsWithoutAnEndpointAnswerAsCouchDB() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let incomplete = try await client.get("/_node")
            incomplete.expectCouchError(400, "bad_request", "Incomplete path to _node request")
            let welcome = try await client.get("/")
            for path in ["/_node/nonode@nohost", "/_node/nonode@nohost/"] {
                let answer = try await client.get(path)
                #expect(answer.status == 200, "\(path)")
                #expect(answer.json["couchdb"] == "Welcome", "\(path)")
                #expect(answer.json["uuid"] == welcome.json["uuid"], "\(path)")
            }
        }
    }

    @Test func configReadsWritesAndDeletesValuesAndAnswersTheOldOne() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let all = try await client.get("/_node/_local/_config").json
            #expect(all["couchdb"]?["max_document_size"] == "8000000")
            #expect(try await client.get("/_node/nonode@nohost/_config/log/level").json == "info")
            #expect(try await client.put("/_node/_local/_config/log/level", "debug").json == "info")
            #expect(try await client.get("/_node/_local/_config/log").json["level"] == "debug")
            #expect(try await client.put("/_node/_local/_config/custom/key", "v").json == "")
            #expect(try await client.send("DELETE", "/_node/_local/_config/custom/key").json == "v")
            #expect(
                try await client.get("/_node/_local/_config/custom/key").json
                    == ["error": "not_found", "reason": "unknown_config_value"])
            #expect(try await client.put("/_node/_local/_config/log/level", ["not": "a string"]).json["reason"] == "a JSON string expected")
            #expect(try await client.put("/_node/_local/_config/query_servers/js", "x").status == 403)
            #expect(try await server.anonymous.get("/_node/_local/_config").status == 401)
        }
    }

    @Test func configChangesApplyAtOnceAndSurviveARestart() async throws {
        let server = try await LiveServer.start()
        let client = server.admin
        _ = try await client.send("PUT", "/db")
        #expect(try await client.put("/_node/_local/_config/couchdb/max_document_size", "64").json == "8000000")
        let big = try await client.put("/db/big", ["text": .string(String(repeating: "x", count: 100))])
        big.expectCouchError(413, "document_too_large", "big")
        #expect(try await client.put("/db/small", ["v": 1]).status == 201)
        #expect(try await client.put("/_node/_local/_config/chttpd/require_valid_user", "true").status == 200)
        #expect(try await server.anonymous.get("/").status == 401)
        await server.stop(keepingFolder: true)

        let again = try await LiveServer.start(folder: server.folder)
        #expect(try await again.admin.get("/_node/_local/_config/couchdb/max_document_size").json == "64")
        #expect(try await again.anonymous.get("/").status == 401)
        #expect(try await again.admin.put("/db/big", ["text": .string(String(repeating: "x", count: 100))]).status == 413)
        await again.stop()
    }

    @Test func statsAndSystemAreForAdminsAndMetricsUsers() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.get("/")
            let stats = try await client.get("/_node/_local/_stats").json
            #expect((stats["couchdb"]?["httpd"]?["requests"]?["value"]?.numberValue?.int64Value ?? 0) >= 1)
            #expect(try await client.get("/_node/_local/_stats/couchdb/httpd/requests").json["type"] == "counter")
            #expect(try await client.get("/_node/_local/_system").json["uptime"] != nil)
        }
    }

    @Test func everyAnswerCarriesARequestIDAndUUIDsAreNotCached() async throws {
        try await withLiveServer { server in
            let answer = try await server.admin.get("/_uuids?count=3")
            #expect(answer.json["uuids"]?.arrayValue?.count == 3)
            #expect(answer.header("Cache-Control") == "no-cache")
            #expect(answer.header("Pragma") == "no-cache")
            #expect(answer.header("ETag")?.hasPrefix("\"") == true)
            let id = try #require(answer.header("X-Couch-Request-ID"))
            #expect(id.count == 10 && id.allSatisfy(\.isHexDigit))
            #expect(try await server.admin.get("/_uuids?count=abc").json["reason"] == "count must be a positive integer")
            #expect(try await server.anonymous.get("/").header("X-Couch-Request-ID") != nil)
        }
    }

    @Test func databasesInfoListsEachDatabaseOrNamesTheMissingOnes() async throws {
        try await withLiveDatabase("alpha") { _, client in
            let listed = try await client.get("/_dbs_info").json.arrayValue ?? []
            #expect(listed.contains { $0["key"] == "alpha" && $0["info"]?["db_name"] == "alpha" })
            let asked = try await client.post("/_dbs_info", ["keys": ["alpha", "missing"]]).json
            #expect(asked.arrayValue?.count == 2)
            #expect(asked.arrayValue?.last == ["key": "missing", "error": "not_found"])
            #expect(try await client.post("/_dbs_info", [:]).json["reason"] == "`keys` member must exist.")
        }
    }

    @Test func corsAnswersPreflightsAndTagsAnswersForAllowedOrigins() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let origin = "http://app.example"
            // Off by default: no CORS headers.
            #expect(try await client.get("/", headers: ["Origin": origin]).header("Access-Control-Allow-Origin") == nil)
            _ = try await client.put("/_node/_local/_config/chttpd/enable_cors", "true")
            _ = try await client.put("/_node/_local/_config/cors/origins", .string(origin))
            _ = try await client.put("/_node/_local/_config/cors/credentials", "true")
            let preflight = try await server.anonymous.send(
                "OPTIONS", "/db/doc",
                headers: ["Origin": origin, "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "content-type"])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Origin") == origin)
            #expect(preflight.header("Access-Control-Allow-Credentials") == "true")
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("PUT") == true)
            #expect(preflight.header("Access-Control-Allow-Headers") == "content-type")
            #expect(preflight.header("Access-Control-Max-Age") == "600")
            let answer = try await client.get("/", headers: ["Origin": origin])
            #expect(answer.header("Access-Control-Allow-Origin") == origin)
            #expect(answer.header("Access-Control-Expose-Headers")?.hasPrefix("content-type, cache-control") == true)
            #expect(try await client.get("/", headers: ["Origin": "http://evil.example"]).header("Access-Control-Allow-Origin") == nil)
        }
    }

    /// `chttpd` answers every `HEAD` as its `GET`; `couch_stats_httpd:extract_path/2` answers `null` for a
    /// statistic it does not have; the configuration holds the server's uuid.
    @Test func nodeEndpointsAnswerHeadAsGetAndAMissingStatisticIsNull() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            for path in ["_stats", "_system", "_versions", "_config", "_config/couchdb", "_config/log/level"] {
                let head = try await client.send("HEAD", "/_node/_local/\(path)")
                #expect(head.status == 200 && head.body.isEmpty, "\(path)")
            }
            let missing = try await client.get("/_node/_local/_stats/couchdb/no_such_metric")
            #expect(missing.status == 200 && missing.json == .null)
            // `couchdb/uuid` is the server's uuid (`couch_server:get_uuid/0`); a count past 64 bits is too large.
            let uuid = try await client.get("/").json["uuid"]
            let configured = try await client.get("/_node/_local/_config/couchdb/uuid").json
            #expect(uuid != nil && configured == uuid)
            try await client.get("/_uuids?count=99999999999999999999").expectCouchError(400, "bad_request", "count parameter too large")
            try await client.get("/_uuids?count=-99999999999999999999").expectCouchError(
                400, "bad_request", "count must be a positive integer")
            // `config:validate_config_update/3`: no brackets in names, no control characters anywhere.
            let value = Data("\"x\"".utf8)
            try await client.send("PUT", "/_node/_local/_config/fo%5Bo/bar", body: value).expectCouchError(
                400, "bad_request", "Invalid configuration section")
            try await client.send("PUT", "/_node/_local/_config/foo/b%5Dar", body: value).expectCouchError(
                400, "bad_request", "Invalid configuration key")
            try await client.send("PUT", "/_node/_local/_config/foo/bar", body: Data("\"a\\nb\"".utf8)).expectCouchError(
                400, "bad_request", "Invalid configuration value")
            #expect(try await client.send("PUT", "/_node/_local/_config/foo/bar", body: Data("\"a b\\tc\"".utf8)).status == 200)
        }
    }
}
