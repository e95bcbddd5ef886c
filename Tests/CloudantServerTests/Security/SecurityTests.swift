import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Users, sessions and database security")
struct SecurityTests {
    private func addUser(_ name: String, roles: [JSONValue] = [], on server: LiveServer) async throws {
        let user: JSONValue = ["name": .string(name), "password": .string("pw-\(name)"), "roles": .array(roles), "type": "user"]
        let answer = try await server.admin.put("/_users/org.couchdb.user:\(name)", user)
        #expect(answer.status == 201)
    }

    @Test func userPasswordsAreStoredOnlyAsPBKDF2Hashes() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let stored = try await server.admin.get("/_users/org.couchdb.user:bob").json
            #expect(stored["password"] == nil)
            #expect(stored["password_scheme"] == "pbkdf2")
            #expect(stored["pbkdf2_prf"] == "sha256")
            #expect(stored["iterations"] == 1000)
            #expect(stored["derived_key"]?.stringValue?.count == 64)
            #expect(stored["salt"]?.stringValue?.count == 32)
            let file = try Data(contentsOf: URL(fileURLWithPath: server.folder + "/_users.sqlite"))
            #expect(file.range(of: Data("pw-bob".utf8)) == nil)
            #expect(try await server.client("bob", "pw-bob").get("/_session").json["userCtx"]?["name"] == "bob")
        }
    }

    @Test func usersMustBeShapedAsCouchDBRequires() async throws {
        try await withLiveServer { server in
            let answer = try await server.admin.put("/_users/org.couchdb.user:eve", ["name": "mallory", "type": "user", "roles": []])
            #expect(answer.status == 403)
            #expect(answer.json["error"] == "forbidden")
        }
    }

    @Test func membersMayReadOthersAreForbiddenAndOnlyAdminsChangeSecurity() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            try await addUser("carol", roles: ["nurse"], on: server)
            _ = try await server.admin.send("PUT", "/db")
            let bob = server.client("bob", "pw-bob")
            let carol = server.client("carol", "pw-carol")
            // New databases are admin-only (CouchDB 3's default_security).
            #expect(try await bob.get("/db").status == 403)
            #expect(try await bob.get("/db").json == ["error": "forbidden", "reason": "You are not allowed to access this db."])
            #expect(try await server.admin.put("/db/_security", ["members": ["roles": ["nurse"]]]).json == ["ok": true])
            #expect(try await carol.put("/db/doc", ["v": 1]).status == 201)
            #expect(try await bob.get("/db/doc").status == 403)
            // A named user who is not a database admin is forbidden, as `couch_db:check_is_admin/1` answers.
            #expect(try await carol.put("/db/_security", ["members": [:]]).json == ["error": "forbidden", "reason": "You are not a db or server admin."])
            #expect(try await carol.put("/db/_design/app", ["views": [:]]).status == 403)
            #expect(try await carol.send("PUT", "/other").status == 401)
            #expect(try await carol.get("/_all_dbs").status == 401)
            #expect(try await carol.get("/_users/org.couchdb.user:bob").status == 403)
            // Its document list is for server admins only, before any security object is read.
            #expect(try await carol.get("/_users/_all_docs").json == ["error": "unauthorized", "reason": "You are not a server admin."])
        }
    }

    @Test func defaultSecurityDecidesTheObjectADatabaseIsCreatedWithAndKeeps() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let bob = server.client("bob", "pw-bob")
            _ = try await server.admin.send("PUT", "/closed")
            let adminOnly: JSONValue = ["members": ["roles": ["_admin"]], "admins": ["roles": ["_admin"]]]
            #expect(try await server.admin.get("/closed/_security").json == adminOnly)
            let refused = try await server.admin.put("/_node/_local/_config/couchdb/default_security", "anyone")
            #expect(refused.status == 400)
            #expect(try await server.admin.put("/_node/_local/_config/couchdb/default_security", "everyone").status == 200)
            _ = try await server.admin.send("PUT", "/open")
            // Written when the database is created: `{}`, which makes every user a member.
            #expect(try await server.admin.get("/open/_security").json == [:])
            #expect(try await bob.put("/open/note", ["v": 1]).status == 201)
            #expect(try await server.anonymous.get("/open/note").status == 200)
            // A database created before keeps its object, as CouchDB's do.
            #expect(try await bob.get("/closed").status == 403)
            #expect(try await server.admin.get("/closed/_security").json == adminOnly)
            // `_users` too follows the setting when it is created again (CouchDB's own test runs use
            // `admin_local`, under which anonymous clients sign up).
            #expect(try await server.admin.put("/_node/_local/_config/couchdb/default_security", "admin_local").status == 200)
            #expect(try await server.admin.send("DELETE", "/_users").status == 200)
            #expect(try await server.admin.send("PUT", "/_users").status == 201)
            let signUp: JSONValue = ["_id": "org.couchdb.user:tom", "name": "tom", "password": "mp3", "roles": [], "type": "user"]
            #expect(try await server.anonymous.post("/_users", signUp).status == 201)
        }
    }

    @Test func sessionCookiesAuthenticateUntilLoggedOutOrForged() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let login = try await server.anonymous.send(
                "POST", "/_session", body: Data("name=bob&password=pw-bob".utf8),
                contentType: "application/x-www-form-urlencoded")
            #expect(login.json == ["ok": true, "name": "bob", "roles": []])
            let setCookie = try #require(login.header("Set-Cookie"))
            let cookie = String(setCookie.split(separator: ";")[0])
            #expect(cookie.hasPrefix("AuthSession="))
            let session = TestClient(baseURL: server.baseURL, user: nil, cookie: cookie)
            #expect(try await session.get("/_session").json["userCtx"]?["name"] == "bob")
            #expect(try await session.get("/_sessions").status == 200)
            let forged = TestClient(baseURL: server.baseURL, user: nil, cookie: cookie.dropLast(2) + "AA")
            #expect(try await forged.get("/_sessions").status == 401)
            let wrong = try await server.anonymous.post("/_session", ["name": "bob", "password": "nope"])
            #expect(wrong.status == 401)
            #expect(try await session.send("DELETE", "/_session").header("Set-Cookie")?.hasPrefix("AuthSession=;") == true)
        }
    }

    @Test func usersReadAndReHashTheirOwnDocumentButCannotGrantThemselvesRoles() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let bob = server.client("bob", "pw-bob")
            let own = try await bob.get("/_users/org.couchdb.user:bob")
            #expect(own.status == 200)
            var document = try #require(own.json.objectValue)
            document["roles"] = ["_admin"]
            #expect(try await bob.put("/_users/org.couchdb.user:bob", .object(document)).status == 403)
            document["roles"] = []
            document["password"] = "new-password"
            #expect(try await bob.put("/_users/org.couchdb.user:bob", .object(document)).status == 201)
            #expect(try await server.client("bob", "new-password").get("/_sessions").status == 200)
            #expect(try await server.client("bob", "pw-bob").get("/_sessions").status == 401)
            #expect(try await bob.get("/_users/org.couchdb.user:admin").status == 401)
        }
    }

    @Test func theAdminSessionCarriesTheAdminRole() async throws {
        try await withLiveServer { server in
            let login = try await server.anonymous.post("/_session", ["name": "admin", "password": "s3cret"])
            #expect(login.json["roles"] == ["_admin"])
        }
    }
}
