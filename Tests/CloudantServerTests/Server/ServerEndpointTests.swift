import CloudantCore
import CloudantServer
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Server endpoints")
struct ServerEndpointTests {
    @Test func welcomeAnswersAnonymouslyWithStableUUIDAndFeatures() async throws {
        try await withLiveServer { server in
            let answer = try await server.anonymous.get("/")
            #expect(answer.status == 200)
            #expect(answer.json["couchdb"] == "Welcome")
            #expect(answer.json["version"] == "3.5.1")
            #expect(answer.json["uuid"]?.stringValue == server.server.uuid)
            #expect(answer.json["features"] == ["partitioned", "scheduler"])
            #expect(try await server.anonymous.get("/_up").json["status"] == "ok")
        }
    }

    /// `chttpd_misc:handle_up_req/1`: a node in maintenance answers `404` so a load balancer drains it.
    @Test func upAnswers404WhileTheNodeIsInMaintenance() async throws {
        try await withLiveServer { server in
            #expect(try await server.anonymous.get("/_up").text == #"{"seeds":{},"status":"ok"}"# + "\n")
            for mode in ["true", "nolb"] {
                let set = try await server.admin.send("PUT", "/_node/_local/_config/couchdb/maintenance_mode", body: Data("\"\(mode)\"".utf8))
                #expect(set.status == 200)
                let up = try await server.anonymous.get("/_up")
                #expect(up.status == 404 && up.json == ["status": .string(mode == "true" ? "maintenance_mode" : "nolb")])
            }
        }
    }

    @Test func serverAdminEndpointsRefuseAnonymousAndWrongCredentials() async throws {
        try await withLiveServer { server in
            let answer = try await server.anonymous.get("/_all_dbs")
            answer.expectCouchError(401, "unauthorized", "You are not a server admin.")
            let wrong = try await server.client("admin", "wrong").get("/_all_dbs")
            #expect(wrong.status == 401)
            #expect(wrong.json["reason"] == "Name or password is incorrect.")
        }
    }

    @Test func uuidsHonourCountAndRefuseMoreThanAThousand() async throws {
        try await withLiveServer { server in
            let answer = try await server.admin.get("/_uuids?count=3")
            #expect(answer.json["uuids"]?.arrayValue?.count == 3)
            #expect(try await server.admin.get("/_uuids?count=1001").status == 400)
        }
    }

    @Test func databasesAreCreatedListedDescribedAndDeleted() async throws {
        try await withLiveServer { server in
            let created = try await server.admin.send("PUT", "/patients")
            #expect(created.status == 201)
            #expect(created.json == ["ok": true])
            let again = try await server.admin.send("PUT", "/patients")
            #expect(again.status == 412)
            #expect(again.json["error"] == "file_exists")
            #expect(try await server.admin.get("/_all_dbs").json == ["_replicator", "_users", "patients"])
            let info = try await server.admin.get("/patients").json
            #expect(info["db_name"] == "patients")
            #expect(info["doc_count"] == 0)
            // The creation time in whole seconds, as CouchDB's shard suffix gives it.
            let createdAt = try #require(info["instance_start_time"]?.stringValue.flatMap { Int($0) })
            #expect(abs(createdAt - Int(Date().timeIntervalSince1970)) < 24 * 3600)
            #expect(try await server.admin.send("HEAD", "/patients").status == 200)
            #expect(try await server.admin.delete("/patients").json == ["ok": true])
            let gone = try await server.admin.get("/patients")
            gone.expectCouchError(404, "not_found", "Database does not exist.")
        }
    }

    @Test(arguments: ["/Caps", "/1abc", "/..%2F..%2Fetc", "/a%20b", "/_nope"])
    func illegalDatabaseNamesAreRejected(path: String) async throws {
        try await withLiveServer { server in
            let answer = try await server.admin.send("PUT", path)
            #expect(answer.status == 400)
            #expect(["illegal_database_name", "bad_request"].contains(answer.json["error"]?.stringValue))
            #expect(!FileManager.default.fileExists(atPath: server.folder + "/../etc.sqlite"))
        }
    }

    @Test func aGETOnAnIllegalNameIsNotFoundAsInCouchDB() async throws {
        try await withLiveServer { server in
            let answer = try await server.admin.get("/Caps")
            #expect(answer.status == 404)
        }
    }

    @Test func bindingBeyondLoopbackWithoutAnAdminRefusesToStart() throws {
        let configuration = ServerConfiguration(host: "0.0.0.0", port: 0, admin: nil)
        #expect {
            _ = try CouchServer(configuration: configuration)
        } throws: { error in
            (error as? CloudantError)?.code == .adminRequired
        }
    }

    @Test func loopbackWithoutAnAdminIsAnAdminParty() async throws {
        try await withLiveServer({ $0.admin = nil }) { server in
            let answer = try await server.anonymous.send("PUT", "/open")
            #expect(answer.status == 201)
        }
    }
}
