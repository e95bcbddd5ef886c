import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// `POST /_replicate`, `/_scheduler/jobs` and `/_active_tasks` on live servers, as CouchDB's replicator answers them.
@Suite("Replication as a server feature")
struct ReplicateEndpointTests {
    @Test func oneShotReplicationBetweenLocalDatabasesAnswersTheCheckpointHistory() async throws {
        try await withLiveDatabase("source") { _, client in
            for index in 0..<3 { _ = try await client.put("/source/doc\(index)", ["n": .number(JSONNumber(index))]) }
            let answer = try await client.post("/_replicate", ["source": "source", "target": "copy", "create_target": true])
            #expect(answer.status == 200)
            let body = answer.json
            #expect(body["ok"] == true)
            #expect(body["no_changes"] == nil)
            #expect(body["session_id"]?.stringValue?.isEmpty == false)
            #expect(body["replication_id_version"] != nil)
            let history = try #require(body["history"]?.arrayValue?.first)
            #expect(history["docs_written"] == 3)
            #expect(history["docs_read"] == 3)
            #expect(history["doc_write_failures"] == 0)
            #expect(history["session_id"] == body["session_id"])
            #expect(try await client.get("/copy/doc2").json["n"] == 2)
            // Nothing new: CouchDB answers `no_changes` with the last checkpoint.
            let again = try await client.post("/_replicate", ["source": "source", "target": "copy", "create_target": true]).json
            #expect(again["ok"] == true)
            #expect(again["no_changes"] == true)
            #expect(again["session_id"] == body["session_id"])
            // A one-shot job is gone once it answered.
            #expect(try await client.get("/_scheduler/jobs").json["total_rows"] == 0)
        }
    }

    @Test func oneShotReplicationPullsFromAnotherLiveServerWithCredentialsInTheURL() async throws {
        try await withLiveServer { remote in
            _ = try await remote.admin.send("PUT", "/patients")
            _ = try await remote.admin.put("/patients/p1", ["name": "Ada"])
            try await withLiveServer { server in
                let source = "http://admin:s3cret@127.0.0.1:\(remote.port)/patients"
                let answer = try await server.admin.post("/_replicate", ["source": .string(source), "target": "patients", "create_target": true])
                #expect(answer.status == 200)
                #expect(answer.json["history"]?.arrayValue?.first?["docs_written"] == 1)
                #expect(try await server.admin.get("/patients/p1").json["name"] == "Ada")
                #expect(!answer.text.contains("s3cret"))
                // And push back into a new database there, the credentials in `auth.basic`.
                _ = try await server.admin.put("/patients/p2", ["name": "Grace"])
                let target: JSONValue = [
                    "url": .string("http://127.0.0.1:\(remote.port)/archive"),
                    "auth": ["basic": ["username": "admin", "password": "s3cret"]],
                ]
                let pushed = try await server.admin.post("/_replicate", ["source": "patients", "target": target, "create_target": true])
                #expect(pushed.json["history"]?.arrayValue?.first?["docs_written"] == 2)
                #expect(try await remote.admin.get("/archive/p2").json["name"] == "Grace")
            }
        }
    }

    @Test func docIDsAndSelectorLimitWhatAReplicationCopies() async throws {
        try await withLiveDatabase("source") { _, client in
            _ = try await client.put("/source/a", ["kind": "task"])
            _ = try await client.put("/source/b", ["kind": "note"])
            _ = try await client.put("/source/c", ["kind": "task"])
            _ = try await client.post("/_replicate", ["source": "source", "target": "ids", "create_target": true, "doc_ids": ["b"]])
            #expect(try await client.get("/ids/_all_docs").json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["b"])
            _ = try await client.post(
                "/_replicate", ["source": "source", "target": "tasks", "create_target": true, "selector": ["kind": "task"]])
            #expect(try await client.get("/tasks/_all_docs").json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["a", "c"])
            let both = try await client.post("/_replicate", ["source": "source", "target": "x", "doc_ids": ["a"], "selector": [:]])
            #expect(both.status == 400)
            #expect(both.json["reason"] == "`doc_ids`,`filter`,`selector` are mutually exclusive")
            let function = try await client.post("/_replicate", ["source": "source", "target": "x", "filter": "mine"])
            #expect(function.status == 400)
            #expect(function.json["reason"] == "Invalid filter. Must match `ddocname/filtername`.")
            let timeout = try await client.post("/_replicate", ["source": "source", "target": "x", "connection_timeout": 0])
            #expect(timeout.status == 400)
        }
    }

    @Test func aDesignDocumentsFilterFunctionWithQueryParamsChoosesWhatIsCopiedLocallyAndFromAnotherServer() async throws {
        let filter: JSONValue = [
            "filters": ["by_ward": "function(doc, req) { return doc.ward === req.query.ward && doc.beds > Number(req.query.min); }"]
        ]
        let patients: [JSONValue] = [
            ["_id": "p1", "ward": "east", "beds": 3], ["_id": "p2", "ward": "west", "beds": 9],
            ["_id": "p3", "ward": "east", "beds": 1], ["_id": "p4", "ward": "east", "beds": 7],
        ]
        func ids(_ client: TestClient, _ database: String) async throws -> [String] {
            try await client.get("/\(database)/_all_docs").json["rows"]?.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
        }
        try await withDesignServer { remote, remoteAdmin in
            #expect(try await remoteAdmin.put("/db/_design/app", filter).status == 201)
            try await remoteAdmin.bulk("db", patients)
            // A local source: this server runs the function itself; `query_params` are its `req.query` (a number
            // arrives as its JSON text, as in a URL).
            let local = try await remoteAdmin.post(
                "/_replicate",
                ["source": "db", "target": "east", "create_target": true, "filter": "app/by_ward", "query_params": ["ward": "east", "min": 2]])
            #expect(local.status == 200, "\(local.json)")
            #expect(try await ids(remoteAdmin, "east") == ["p1", "p4"])
            // A remote source runs it: a second server pulls over HTTP with the same filter.
            try await withLiveServer { server in
                let source = "http://admin:s3cret@127.0.0.1:\(remote.port)/db"
                let pulled = try await server.admin.post(
                    "/_replicate",
                    ["source": .string(source), "target": "west", "create_target": true, "filter": "app/by_ward",
                     "query_params": ["ward": "west", "min": "0"], "connection_timeout": 60_000])
                #expect(pulled.status == 200, "\(pulled.json)")
                #expect(try await ids(server.admin, "west") == ["p2"])
            }
        }
    }

    @Test func aMissingSourceAnswersDbNotFoundAndAMalformedBodyIsRefused() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let missing = try await client.post("/_replicate", ["source": "nothing-here", "target": "t", "create_target": true])
            #expect(missing.status == 500)
            #expect(missing.json["error"] == "db_not_found")
            #expect(missing.json["reason"] == "could not open nothing-here")
            let remote = try await client.post(
                "/_replicate", ["source": .string("http://admin:s3cret@127.0.0.1:\(server.port)/absent"), "target": "t", "create_target": true])
            #expect(remote.json["error"] == "db_not_found")
            #expect(remote.json["reason"] == .string("could not open http://127.0.0.1:\(server.port)/absent/"))
            #expect(try await client.post("/_replicate", ["target": "t"]).json["reason"] == "Missing replicator database")
            #expect(try await client.post("/_replicate", ["source": "a", "target": "b", "continuous": "yes"]).status == 400)
            #expect(try await client.get("/_replicate").status == 405)
        }
    }

    @Test func continuousReplicationRunsInTheSchedulerUntilCancelled() async throws {
        try await withLiveDatabase("source") { server, client in
            _ = try await client.put("/source/first", ["v": 1])
            let source = "http://admin:s3cret@127.0.0.1:\(server.port)/source"
            let body: JSONValue = ["source": .string(source), "target": "mirror", "continuous": true, "create_target": true]
            let started = try await client.post("/_replicate", body)
            #expect(started.status == 202)
            #expect(started.json["ok"] == true)
            let id = try #require(started.json["_local_id"]?.stringValue)
            #expect(id.hasSuffix("+continuous+create_target"))
            try await waitUntil("the first document replicated") { try await client.get("/mirror/first").status == 200 }
            _ = try await client.put("/source/second", ["v": 2])
            try await waitUntil("a later document replicated") { try await client.get("/mirror/second").status == 200 }

            let jobs = try await client.get("/_scheduler/jobs")
            #expect(!jobs.text.contains("s3cret"))
            #expect(jobs.json["total_rows"] == 1)
            let job = try #require(jobs.json["jobs"]?.arrayValue?.first)
            #expect(job["id"] == .string(id))
            #expect(job["source"] == .string("http://127.0.0.1:\(server.port)/source/"))
            #expect(job["target"] == "mirror")
            #expect(job["database"] == .null)
            #expect(job["user"] == "admin")
            #expect(job["history"]?.arrayValue?.compactMap { $0["type"]?.stringValue }.last == "added")
            #expect(try await client.get("/_scheduler/jobs/\(id)").json["id"] == .string(id))
            try await waitUntil("the job counted in its info") {
                try await client.get("/_scheduler/jobs/\(id)").json["info"]?["docs_written"] == 2
            }
            let tasks = try await client.get("/_active_tasks").json.arrayValue ?? []
            #expect(tasks.contains { $0["replication_id"] == .string(id) && $0["type"] == "replication" })
            // The same body again is the same job.
            #expect(try await client.post("/_replicate", body).json["_local_id"] == .string(id))
            #expect(try await client.get("/_scheduler/jobs").json["total_rows"] == 1)

            let cancelled = try await client.post("/_replicate", ["replication_id": .string(id), "cancel": true])
            #expect(cancelled.status == 200)
            #expect(cancelled.json == ["ok": true, "_local_id": .string(id)])
            #expect(try await client.get("/_scheduler/jobs").json["total_rows"] == 0)
            #expect(try await client.get("/_active_tasks").json == [])
            let again = try await client.post("/_replicate", ["replication_id": .string(id), "cancel": true])
            #expect(again.status == 404)
            #expect(again.json == ["error": "not_found", "reason": "missing"])
            #expect(try await client.get("/_scheduler/jobs/\(id)").status == 404)
        }
    }

    @Test func aContinuousJobIsCancelledByTheBodyThatStartedIt() async throws {
        try await withLiveDatabase("source") { _, client in
            let body: JSONObject = ["source": "source", "target": "other", "continuous": true, "create_target": true]
            let id = try #require(try await client.post("/_replicate", .object(body)).json["_local_id"])
            var cancel = body
            cancel["cancel"] = true
            let cancelled = try await client.post("/_replicate", .object(cancel))
            #expect(cancelled.status == 200)
            #expect(cancelled.json["_local_id"] == id)
        }
    }

    @Test func onlyAdminsStartJobsAndOnlyTheirOwnerOrAnAdminCancelsThem() async throws {
        try await withLiveServer { server in
            let client = server.admin
            _ = try await client.put("/_users/org.couchdb.user:joe", ["name": "joe", "password": "erly", "roles": [], "type": "user"])
            _ = try await client.send("PUT", "/source")
            let joe = server.client("joe", "erly")
            let refused = try await joe.post("/_replicate", ["source": "source", "target": "mine", "create_target": true])
            #expect(refused.status == 401)
            #expect(refused.json["error"] == "unauthorized")
            let id = try #require(
                try await client.post("/_replicate", ["source": "source", "target": "t", "continuous": true, "create_target": true])
                    .json["_local_id"])
            let cancel: JSONValue = ["replication_id": id, "cancel": true]
            let byJoe = try await joe.post("/_replicate", cancel)
            #expect(byJoe.status == 401)
            #expect(byJoe.json["error"] == "unauthorized")
            #expect(try await client.post("/_replicate", cancel).status == 200)
            #expect(try await joe.get("/_scheduler/jobs").status == 401)
        }
    }

    @Test func schedulerAnswersCouchDBsErrorsForUnknownPathsAndBadParameters() async throws {
        try await withLiveServer { server in
            let client = server.admin
            let unknown = try await client.get("/_scheduler/other")
            #expect(unknown.status == 404)
            #expect(unknown.json == ["error": "not found"])
            #expect(try await client.get("/_scheduler/jobs?limit=x").json["error"] == "query_parse_error")
            #expect(try await client.get("/_scheduler/docs?states=sleeping").json["error"] == "query_parse_error")
            #expect(try await client.send("POST", "/_scheduler/jobs").status == 405)
            let docs = try await client.get("/_scheduler/docs")
            #expect(docs.header("Content-Type") == "application/json")
            #expect(docs.json == ["total_rows": 0, "offset": 0, "docs": []])
        }
    }

    /// `couch_replicator_parse` reads the proxies and the options before the endpoints, and `chttpd:error_info/1`
    /// answers a URL it cannot use as `invalid_replication`.
    @Test func aReplicationBodyIsCheckedAsCouchReplicatorParseChecksIt() async throws {
        try await withLiveServer { (server: LiveServer) async throws in
            let client = server.admin
            for source in ["http://", "http://host:abc/db"] {
                let answer = try await client.post("/_replicate", ["source": .string(source), "target": "http://127.0.0.1:1/b"])
                #expect(answer.status == 400 && answer.json == ["error": "invalid_replication", "reason": "endpoint has an invalid url"])
            }
            let parameters = try await client.post("/_replicate", ["source": "a", "target": "b", "create_target_params": 3])
            #expect(parameters.json == ["error": "bad_request", "reason": "parameter `create_target_params` must be a JSON object"])
            let proxies = try await client.post(
                "/_replicate", ["source": "a", "target": "b", "proxy": "http://p", "target_proxy": "http://q"])
            #expect(proxies.json == ["error": "bad_request", "reason": "`proxy` is mutually exclusive with `target_proxy`"])
        }
    }
}
