import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Crypto
import Foundation
import Testing

/// `/_session` and the credentials around it, by CouchDB's `couch_httpd_auth` and `chttpd` rules: redirects
/// after a login or logout, `?basic=true`, the cookie's attributes and malformed cookies, the login prompt a
/// `401` carries, the lockout's treatment of unknown names, and the password schemes of older `_users`
/// documents.
@Suite("Session and credential rules")
struct SessionRulesTests {
    private let config = "/_node/_local/_config"

    private func addUser(_ name: String, roles: [JSONValue] = [], on server: LiveServer) async throws {
        let user: JSONValue = ["name": .string(name), "password": "pw", "roles": .array(roles), "type": "user"]
        #expect(try await server.admin.put("/_users/org.couchdb.user:\(name)", user).status == 201)
    }

    private func login(_ name: String, _ password: String, query: String = "", on server: LiveServer) async throws -> HTTPAnswer {
        try await server.anonymous.post("/_session" + query, ["name": .string(name), "password": .string(password)])
    }

    @Test func loginAndLogoutRedirectWhereNextAndFailSay() async throws {
        try await withLiveServer { server in
            try await addUser("bob", roles: ["r1"], on: server)
            let next = try await login("bob", "pw", query: "?next=/_all_dbs", on: server)
            #expect(next.status == 302)
            #expect(next.header("Location") == "http://127.0.0.1/_all_dbs")
            #expect(next.json == ["ok": true, "name": "bob", "roles": ["r1"]])
            #expect(next.header("Set-Cookie")?.hasPrefix("AuthSession=") == true)

            let failed = try await login("bob", "wrong", query: "?fail=/login.html", on: server)
            #expect(failed.status == 302)
            #expect(failed.header("Location") == "http://127.0.0.1/login.html")
            #expect(failed.json == ["error": "unauthorized", "reason": "Name or password is incorrect."])
            #expect(failed.header("Set-Cookie")?.hasPrefix("AuthSession=;") == true)

            let logout = try await server.anonymous.send("DELETE", "/_session?next=/bye")
            #expect(logout.status == 302 && logout.header("Location") == "http://127.0.0.1/bye" && logout.json == ["ok": true])
            // `couch_httpd:absolute_uri/2` takes a path only.
            try await login("bob", "pw", query: "?next=elsewhere", on: server).expectCouchError(400, "bad_request", "path must begin with a /.")
        }
    }

    @Test func aFailedLoginClearsTheCookieWithoutALoginPrompt() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            #expect(try await server.admin.send("PUT", "\(config)/chttpd/require_valid_user", body: Data("\"true\"".utf8)).status == 200)
            let failed = try await login("bob", "wrong", on: server)
            #expect(failed.status == 401 && failed.json["reason"] == "Name or password is incorrect.")
            #expect(failed.header("Set-Cookie")?.hasPrefix("AuthSession=; Version=1; Expires=") == true)
            // The login is answered, not raised, so it carries no `WWW-Authenticate` (`send_json`, not `send_error`).
            #expect(failed.header("WWW-Authenticate") == nil)
        }
    }

    @Test func basicTrueAsksAnAnonymousClientToLogIn() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            try await server.anonymous.get("/_session?basic=true").expectCouchError(401, "unauthorized", "Please login.")
            #expect(try await server.client("bob", "pw").get("/_session?basic=true").json["userCtx"]?["name"] == "bob")
            #expect(try await server.anonymous.get("/_session?basic=yes").status == 200)
            let head = try await server.client("bob", "pw").send("HEAD", "/_session")
            #expect(head.status == 200 && head.body.isEmpty)
        }
    }

    @Test func theCookieCarriesItsExpiryAndAMalformedOneIsRefused() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let cookie = try #require(try await login("bob", "pw", on: server).header("Set-Cookie"))
            let attributes = cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(attributes.count >= 6)
            #expect(Array(attributes.dropFirst().prefix(4).map { $0.split(separator: "=")[0] }) == ["Version", "Expires", "Max-Age", "Path"])
            #expect(attributes[2].hasSuffix(" GMT") && attributes[3] == "Max-Age=600" && attributes.contains("HttpOnly"))
            for malformed in ["@@@", "YWJj"] {  // not base64url; "abc", which has no `:`
                let client = TestClient(baseURL: server.baseURL, user: nil, cookie: "AuthSession=\(malformed)")
                try await client.get("/_session").expectCouchError(
                    400, "bad_request", "Malformed AuthSession cookie. Please clear your cookies.")
            }
            // Well formed but not signed here: anonymous, as CouchDB treats a cookie that does not verify.
            let forged = Data("bob:5F000000:abcdef".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            let client = TestClient(baseURL: server.baseURL, user: nil, cookie: "AuthSession=\(forged)")
            #expect(try await client.get("/_session").json["userCtx"]?["name"] == .null)
            #expect(try await TestClient(baseURL: server.baseURL, user: nil, cookie: "AuthSession=").get("/_session").status == 200)
        }
    }

    @Test func a401CarriesTheLoginPromptChttpdErrorHeadersGivesIt() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let bob = server.client("bob", "pw")
            #expect(try await bob.get("/_all_dbs").header("WWW-Authenticate") == nil)
            let echoed = try await bob.send("GET", "/_all_dbs", headers: ["X-CouchDB-WWW-Authenticate": "Cookie"])
            #expect(echoed.status == 401 && echoed.header("WWW-Authenticate") == "Cookie")
            #expect(try await server.admin.send("PUT", "\(config)/chttpd/require_valid_user", body: Data("\"true\"".utf8)).status == 200)
            for answer in [try await bob.get("/_all_dbs"), try await server.client("bob", "wrong").get("/")] {
                #expect(answer.status == 401 && answer.header("WWW-Authenticate") == "Basic realm=\"server\"")
            }
            #expect(try await server.admin.send("PUT", "\(config)/chttpd/WWW-Authenticate", body: Data("\"Basic realm=\\\"couch\\\"\"".utf8)).status == 200)
            #expect(try await bob.get("/_all_dbs").header("WWW-Authenticate") == "Basic realm=\"couch\"")
        }
    }

    @Test func basicAuthWithANameNobodyHasIsNeverLockedOut() async throws {
        try await withLiveServer { server in
            let nobody = server.client("nobody", "guess")
            for _ in 0..<5 {
                try await nobody.get("/_session").expectCouchError(401, "unauthorized", "Name or password is incorrect.")
            }
            // Past CouchDB's threshold the lockout still says nothing; this server's own throttle slows the name.
            let sixth = try await nobody.get("/_session")
            #expect(sixth.status != 403 && sixth.json["error"] != "forbidden")
            // A login form counts unknown names as CouchDB's `authenticate/5` does.
            for _ in 0..<5 { _ = try await login("nobody-else", "guess", on: server) }
            try await login("nobody-else", "guess", on: server).expectCouchError(
                403, "forbidden", "Account is temporarily locked due to multiple authentication failures")
        }
    }

    @Test func anAdminWithAUserDocumentGetsItsRolesToo() async throws {
        try await withLiveServer { server in
            let name = LiveServer.admin.name
            let document: JSONValue = ["name": .string(name), "roles": ["r9"], "type": "user"]
            let created = try await server.admin.put("/_users/org.couchdb.user:\(name)", document)
            #expect(created.status == 201)
            #expect(try await server.admin.get("/_session").json["userCtx"]?["roles"] == ["_admin", "r9"])
            // The roles are kept between requests, and a write to the authentication database forgets them.
            var changed = try #require(try await server.admin.get("/_users/org.couchdb.user:\(name)").json.objectValue)
            changed["roles"] = ["r9", "r10"]
            #expect(try await server.admin.put("/_users/org.couchdb.user:\(name)", .object(changed)).status == 201)
            #expect(try await server.admin.get("/_session").json["userCtx"]?["roles"] == ["_admin", "r9", "r10"])
        }
    }

    @Test func usersOfOlderCouchDBsLogInWithSimpleHashesAndAreUpgraded() async throws {
        try await withLiveServer { server in
            let salt = "salt123"
            let sha = PasswordHasher.simple("pw", salt: salt)
            let simple: JSONValue = [
                "name": "sam", "roles": [], "type": "user", "password_scheme": "simple", "salt": .string(salt),
                "password_sha": .string(sha),
            ]
            #expect(try await server.admin.put("/_users/org.couchdb.user:sam", simple).status == 201)
            // The scheme CouchDB assumes when a document names none.
            var unnamed = simple.objectValue ?? [:]
            unnamed["name"] = "una"
            unnamed["password_scheme"] = nil
            #expect(try await server.admin.put("/_users/org.couchdb.user:una", .object(unnamed)).status == 201)
            let wrapped = try PasswordHasher.derive(sha, salt: salt, iterations: 10, prf: "sha256")
            let simplePBKDF2: JSONValue = [
                "name": "sp", "roles": [], "type": "user", "password_scheme": "simple+pbkdf2", "salt": .string(salt),
                "pbkdf2_prf": "sha256", "iterations": 10, "derived_key": .string(wrapped),
            ]
            #expect(try await server.admin.put("/_users/org.couchdb.user:sp", simplePBKDF2).status == 201)
            for name in ["sam", "una", "sp"] {
                #expect(try await server.client(name, "pw").get("/_session").json["userCtx"]?["name"] == .string(name), "\(name)")
                #expect(try await server.client(name, "wrong").get("/_session").status == 401, "\(name)")
            }
            // Each is hashed again with PBKDF2 once it has logged in.
            for name in ["sam", "una", "sp"] {
                try await waitUntil("\(name)'s hash upgraded") {
                    try await server.admin.get("/_users/org.couchdb.user:\(name)").json["password_scheme"] == "pbkdf2"
                }
                #expect(try await server.admin.get("/_users/org.couchdb.user:\(name)").json["password_sha"] == nil, "\(name)")
            }
            #expect(try await server.client("sam", "pw").get("/_session").json["userCtx"]?["name"] == "sam")
        }
    }

    @Test func aUserDocumentKeepsItsHashInFrontAndItsOwnerMayDeleteIt() async throws {
        try await withLiveServer { server in
            try await addUser("bob", roles: ["r1"], on: server)
            let stored = try await server.admin.get("/_users/org.couchdb.user:bob").json.objectValue ?? [:]
            #expect(Array(stored.keys.prefix(7)) == ["_id", "_rev", "password_scheme", "pbkdf2_prf", "salt", "iterations", "derived_key"])
            let bob = server.client("bob", "pw")
            var edited = stored
            edited["roles"] = ["r1", "r2"]
            try await bob.put("/_users/org.couchdb.user:bob", .object(edited)).expectCouchError(
                403, "forbidden", "Only _admin may edit roles")
            let rev = try #require(stored["_rev"]?.stringValue)
            let deleted = try await bob.send("DELETE", "/_users/org.couchdb.user:bob?rev=\(rev)")
            #expect(deleted.status == 200 && deleted.json["ok"] == true)
            #expect(try await server.admin.get("/_users/org.couchdb.user:bob").status == 404)
        }
    }
}
