import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import HTTPTypes
import Testing

/// Requests without credentials, answered by CouchDB's rules: `chttpd_auth_request`'s table for server
/// endpoints, each database's security object for its documents (a database whose `members` name nobody is
/// public), `require_valid_user` to keep anonymous clients out, and `_users` admitting sign-ups only when its
/// security object lets them in.
@Suite("Anonymous access by CouchDB's rules")
struct AnonymousAccessTests {
    private let config = "/_node/_local/_config"
    private static let open: JSONValue = ["admins": ["names": [], "roles": []], "members": ["names": [], "roles": []]]

    private func addUser(_ name: String, on server: LiveServer) async throws {
        let user: JSONValue = ["name": .string(name), "password": "pw", "roles": [], "type": "user"]
        #expect(try await server.admin.put("/_users/org.couchdb.user:\(name)", user).status == 201)
    }

    @Test func publicDatabasesServeAnonymousClientsAndOthersAnswerAsCouchDB() async throws {
        try await withLiveServer { server in
            let anonymous = server.anonymous
            for name in ["closed", "public", "legacy"] { #expect(try await server.admin.send("PUT", "/\(name)").status == 201) }
            #expect(try await server.admin.put("/public/_security", Self.open).status == 200)
            // `readers` is what CouchDB before 1.2 called `members`, and is still read when `members` is absent.
            #expect(try await server.admin.put("/legacy/_security", ["readers": ["names": ["bob"]]]).status == 200)
            try await addUser("bob", on: server)
            let bob = server.client("bob", "pw")

            // A database without a security object is CouchDB 3's admin_only: 401 for anonymous, 403 for a name.
            #expect(try await anonymous.get("/closed").json == ["error": "unauthorized", "reason": "You are not authorized to access this db."])
            #expect(try await bob.get("/closed").json == ["error": "forbidden", "reason": "You are not allowed to access this db."])
            #expect(try await bob.get("/legacy").status == 200)
            #expect(try await anonymous.get("/legacy").status == 401)

            // A public database: anyone reads and writes documents; design documents need a database admin.
            #expect(try await anonymous.put("/public/doc", ["v": 1]).status == 201)
            #expect(try await anonymous.get("/public/doc").json["v"] == 1)
            #expect(try await anonymous.get("/public/_all_docs").json["total_rows"] == 1)
            let designWrite = try await anonymous.put("/public/_design/app", ["views": [:]]).json
            #expect(designWrite == ["error": "unauthorized", "reason": "You are not a db or server admin."])
            #expect(try await bob.put("/public/_design/app", ["views": [:]]).status == 403)

            // `_compact` and `_view_cleanup` check membership first, then administration, always 401.
            let compaction = try await anonymous.post("/public/_compact", [:]).json
            #expect(compaction == ["error": "unauthorized", "reason": "You are not a server or db admin."])
            let nonMemberCompaction = try await bob.post("/closed/_compact", [:]).json
            #expect(nonMemberCompaction == ["error": "forbidden", "reason": "You are not allowed to access this db."])
            // Creating or deleting a database is for server admins.
            #expect(try await anonymous.send("PUT", "/other").json == ["error": "unauthorized", "reason": "You are not a server admin."])
            #expect(try await anonymous.send("DELETE", "/public").status == 401)
        }
    }

    @Test func serverEndpointsFollowCouchDBsAuthorizationTable() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            for client in [server.anonymous, server.client("bob", "pw")] {
                for path in ["/", "/_up", "/_uuids"] { #expect(try await client.get(path).status == 200, "\(path)") }
                for path in ["/_all_dbs", "/_membership", "/_scheduler/jobs", "/_db_updates", "/_node/_local", "/_active_tasks"] {
                    #expect(try await client.get(path).json == ["error": "unauthorized", "reason": "You are not a server admin."], "\(path)")
                }
                #expect(try await client.get("/_node/_local/_stats").json["reason"] == "You are not a server admin or read-only metrics user")
            }
            let replicate = try await server.anonymous.post("/_replicate", ["source": "a", "target": "b"])
            #expect(replicate.json == ["error": "unauthorized", "reason": "You are not an authenticated user"])
            // A 401 without require_valid_user carries no login prompt, as CouchDB's.
            #expect(replicate.header("WWW-Authenticate") == nil)

            #expect(try await server.admin.send("PUT", "\(config)/chttpd/admin_only_all_dbs", body: Data("\"false\"".utf8)).status == 200)
            #expect(try await server.anonymous.get("/_all_dbs").status == 200)
        }
    }

    @Test func requireValidUserKeepsAnonymousClientsOutButLetsThemLogIn() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let anonymous = server.anonymous
            #expect(try await server.admin.send("PUT", "\(config)/chttpd/require_valid_user", body: Data("\"true\"".utf8)).status == 200)
            let refused = try await anonymous.get("/")
            #expect(refused.json == ["error": "unauthorized", "reason": "Authentication required."])
            #expect(refused.header("WWW-Authenticate") == "Basic realm=\"server\"")
            #expect(try await anonymous.get("/_up").status == 401)
            #expect(try await anonymous.get("/_session").status == 401)
            let login = try await anonymous.post("/_session", ["name": "bob", "password": "pw"])
            #expect(login.status == 200)
            #expect(try await server.client("bob", "pw").get("/").status == 200)

            // `require_valid_user_except_for_up` leaves the health check open.
            #expect(try await server.admin.send("PUT", "\(config)/chttpd/require_valid_user", body: Data("\"false\"".utf8)).status == 200)
            #expect(try await server.admin.send("PUT", "\(config)/chttpd/require_valid_user_except_for_up", body: Data("\"true\"".utf8)).status == 200)
            #expect(try await anonymous.get("/_up").status == 200)
            #expect(try await anonymous.get("/").status == 401)
        }
    }

    @Test func anonymousClientsSignUpOnlyWhereTheAuthenticationDatabaseAdmitsThem() async throws {
        try await withLiveServer { server in
            let anonymous = server.anonymous
            let tom: JSONValue = ["name": "tom", "password": "mp3", "roles": [], "type": "user"]
            // `_users` is admins-only, and its security object cannot be changed, until the setting says so.
            let closedSignUp = try await anonymous.put("/_users/org.couchdb.user:tom", tom).json
            #expect(closedSignUp == ["error": "unauthorized", "reason": "You are not authorized to access this db."])
            let securityChange = try await server.admin.put("/_users/_security", Self.open).json
            #expect(securityChange == ["error": "forbidden", "reason": "You can't edit the security object of the user database."])
            #expect(try await server.admin.send("PUT", "\(config)/couchdb/users_db_security_editable", body: Data("\"true\"".utf8)).status == 200)
            #expect(try await server.admin.put("/_users/_security", Self.open).status == 200)

            #expect(try await anonymous.put("/_users/org.couchdb.user:tom", tom).status == 201)
            let jerry: JSONValue = ["_id": "org.couchdb.user:jerry", "name": "jerry", "password": "x", "roles": [], "type": "user"]
            #expect(try await anonymous.post("/_users", jerry).status == 201)
            #expect(try await server.client("tom", "mp3").get("/_session").json["userCtx"]?["name"] == "tom")

            // `_design/_auth`'s rules for non-admins, and nobody reads or changes another user's document.
            let boss: JSONValue = ["name": "eve", "password": "x", "roles": ["boss"], "type": "user"]
            #expect(try await anonymous.put("/_users/org.couchdb.user:eve", boss).json == ["error": "forbidden", "reason": "Only _admin may set roles"])
            let overwrite = try await anonymous.put("/_users/org.couchdb.user:tom", tom).json
            #expect(overwrite == ["error": "forbidden", "reason": "You may only update your own user document."])
            #expect(try await anonymous.get("/_users/org.couchdb.user:tom").json == ["error": "not_found", "reason": "missing"])
            let tomClient = server.client("tom", "mp3")
            #expect(try await tomClient.get("/_users/org.couchdb.user:jerry").json == ["error": "not_found", "reason": "missing"])
            #expect(try await tomClient.get("/_users/org.couchdb.user:tom").json["name"] == "tom")
            #expect(try await anonymous.get("/_users/_changes").json == ["error": "unauthorized", "reason": "You are not a server admin."])
            let design = try await tomClient.get("/_users/_design/_auth").json
            #expect(design == ["error": "forbidden", "reason": "Only administrators can view design docs in the users database."])

            // `chttpd_auth/public_fields` lets others read those members of a user document, and only those.
            #expect(try await server.admin.send("PUT", "\(config)/chttpd_auth/public_fields", body: Data("\"name, type\"".utf8)).status == 200)
            let shown = try await tomClient.get("/_users/org.couchdb.user:jerry").json
            #expect(shown["name"] == "jerry" && shown["type"] == "user" && shown["_id"] == "org.couchdb.user:jerry")
            #expect(shown["derived_key"] == nil && shown["roles"] == nil)
        }
    }

    @Test func aDataFolderServedBeforeStaysClosedToAnonymousClientsUntilAnAdminOpensIt() async throws {
        // A folder a server has served holds its identity file; one without a decision kept closes.
        let folder = NSTemporaryDirectory() + "cloudant-anonymous-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let identity: JSONValue = ["uuid": "0123456789abcdef0123456789abcdef", "secret": .string(String(repeating: "ab", count: 32))]
        try identity.jsonData().write(to: URL(fileURLWithPath: folder).appendingPathComponent(ServerIdentity.fileName))
        var server = try await LiveServer.start(folder: folder)
        #expect(try await server.admin.get("\(config)/chttpd/require_valid_user_except_for_up").json == "true")
        #expect(try await server.anonymous.get("/").status == 401)
        #expect(try await server.anonymous.get("/_up").status == 200)

        // The admin's choice is kept across restarts.
        #expect(try await server.admin.send("PUT", "\(config)/chttpd/require_valid_user_except_for_up", body: Data("\"false\"".utf8)).status == 200)
        server = try await server.restart()
        #expect(try await server.anonymous.get("/").status == 200)
        await server.stop()

        // A new folder starts as CouchDB does, and stays so when it is served again.
        var fresh = try await LiveServer.start()
        #expect(try await fresh.admin.get("\(config)/chttpd/require_valid_user").json == "false")
        fresh = try await fresh.restart()
        #expect(try await fresh.anonymous.get("/").status == 200)
        #expect(try await fresh.admin.get("\(config)/chttpd/require_valid_user_except_for_up").status == 404)
        await fresh.stop()
    }
}

@Suite("CouchDB's request authorization table")
struct RequestAuthorizationTableTests {
    private func of(
        _ method: HTTPRequest.Method, _ path: String, adminOnly: Bool = true, usersDatabase: String = "_users"
    ) -> RequestAuthorization {
        RequestAuthorization.of(
            method: method, segments: path.split(separator: "/").map(String.init), adminOnlyAllDatabases: adminOnly,
            usersDatabase: usersDatabase)
    }

    @Test func pathsGetCouchDBsRequirements() {
        #expect(of(.get, "/") == .open)
        #expect(of(.get, "/_up") == .open && of(.get, "/_uuids") == .open && of(.post, "/_session") == .open)
        #expect(of(.get, "/_up/x") == .serverAdmin)
        #expect(of(.get, "/_all_dbs") == .serverAdmin && of(.get, "/_all_dbs", adminOnly: false) == .open)
        #expect(of(.post, "/_replicate") == .authenticatedUser)
        #expect(of(.get, "/_node/_local/_stats/couchdb") == .metricsReader && of(.get, "/_node/_local/_config") == .serverAdmin)
        #expect(of(.get, "/_reshard") == .serverAdmin && of(.get, "/_scheduler/docs") == .serverAdmin)
        #expect(of(.put, "/_users") == .serverAdmin && of(.get, "/_users/_all_docs") == .serverAdmin)
        #expect(of(.get, "/_users/org.couchdb.user:x") == .databaseMember("_users") && of(.get, "/_replicator/_changes") == .serverAdmin)
        #expect(of(.put, "/db") == .serverAdmin && of(.get, "/db") == .databaseMember("db") && of(.delete, "/db") == .serverAdmin)
        #expect(of(.post, "/db/_compact/ddoc") == .databaseAdmin("db") && of(.post, "/db/_view_cleanup") == .databaseAdmin("db"))
        #expect(of(.post, "/db/_purge") == .serverAdmin && of(.put, "/db/_purged_infos_limit") == .serverAdmin)
        #expect(of(.get, "/db/_purge/x") == .databaseMember("db") && of(.put, "/db/doc") == .databaseMember("db"))
        // A configured authentication database is guarded as `_users`, and `_users` itself still is.
        #expect(of(.get, "/people/_changes", usersDatabase: "people") == .serverAdmin)
        #expect(of(.get, "/_users/_all_docs", usersDatabase: "people") == .serverAdmin)
        #expect(of(.get, "/other/_changes", usersDatabase: "people") == .databaseMember("other"))
    }
}
