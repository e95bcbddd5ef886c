import CloudantCore
import CloudantJavaScript
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// The database users log in from, as CouchDB's `chttpd_auth` keeps it: `_users` unless
/// `chttpd_auth/authentication_db` names another, which then gets the `_users` rules; its `_design/_auth`
/// written as CouchDB's auth cache writes it; user documents with conflicts refused; the password
/// requirements of `password_regexp`.
@Suite("Authentication database")
struct AuthenticationDatabaseTests {
    private let config = "/_node/_local/_config"

    private func user(_ name: String, _ password: String) -> JSONValue {
        ["_id": .string("org.couchdb.user:\(name)"), "name": .string(name), "password": .string(password), "roles": [], "type": "user"]
    }

    private func designDocumentIDs(_ server: LiveServer, _ database: String) async throws -> [String] {
        let rows = try await server.admin.get("/\(database)/_design_docs").json["rows"]?.arrayValue ?? []
        return rows.compactMap { $0["id"]?.stringValue }
    }

    @Test func aConfiguredDatabaseIsWhereUsersLogInAndGetsTheUsersRules() async throws {
        try await withLiveServer { server in
            #expect(try await server.admin.put("/people", [:]).status == 201)
            #expect(try await server.admin.put("\(config)/chttpd_auth/authentication_db", "people").status == 200)
            #expect(try await server.admin.post("/people", user("ann", "pw")).status == 201)
            // Hashed on write, as in `_users`, and read by the login.
            let stored = try await server.admin.get("/people/org.couchdb.user:ann").json
            #expect(stored["password"] == nil && stored["derived_key"]?.stringValue?.count == 64)
            let session = try await server.client("ann", "pw").get("/_session").json
            #expect(session["userCtx"]?["name"] == "ann")
            #expect(session["info"]?["authenticated"] == "default")
            #expect(session["info"]?["authentication_db"] == "people")
            // `_users` no longer logs anyone in.
            _ = try await server.admin.put("/_users/org.couchdb.user:bob", user("bob", "pw"))
            #expect(try await server.client("bob", "pw").get("/_all_dbs").status == 401)
            // And a user reads their own document there, not others'.
            #expect(try await server.client("ann", "pw").get("/people/org.couchdb.user:ann").status == 200)
            #expect(try await server.client("ann", "pw").get("/people").status == 403)
            #expect(try await server.admin.put("\(config)/chttpd_auth/authentication_db", "Not A Name").status == 400)
        }
    }

    /// The design documents of `database` once they are `expected`: the listener writes `_design/_auth` when
    /// its retry timer fires (CouchDB's 5 seconds), so this waits for it, for a minute at most.
    private func eventualDesignDocumentIDs(_ server: LiveServer, _ database: String, _ expected: [String]) async throws -> [String] {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(60)
        while true {
            let ids = try await designDocumentIDs(server, database)
            if ids == expected || clock.now > deadline { return ids }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test func theAuthDesignDocumentIsWrittenWhereTheListenerStarts() async throws {
        try await withLiveServer { server in
            #expect(try await designDocumentIDs(server, "_users") == [AuthDesignDocument.id])
            // A deleted `_users` stays deleted; created again, it gets the design document again.
            #expect(try await server.admin.delete("/_users").status == 200)
            #expect(try await server.admin.get("/_users").status == 404)
            #expect(try await server.admin.put("/_users", [:]).status == 201)
            #expect(try await eventualDesignDocumentIDs(server, "_users", [AuthDesignDocument.id]) == [AuthDesignDocument.id])
            // Naming another database moves the listener only once the one it is on is deleted, as CouchDB's
            // auth cache moves.
            _ = try await server.admin.put("/people", [:])
            _ = try await server.admin.put("\(config)/chttpd_auth/authentication_db", "people")
            #expect(try await server.admin.post("/people", user("x", "pw")).status == 201)
            #expect(try await designDocumentIDs(server, "people") == [])
            _ = try await server.admin.delete("/_users")
            _ = try await server.admin.put("/_users", [:])
            #expect(try await eventualDesignDocumentIDs(server, "people", [AuthDesignDocument.id]) == [AuthDesignDocument.id])
            #expect(try await designDocumentIDs(server, "_users") == [])
        }
    }

    @Test func theAuthDesignDocumentStatesCouchDBsRulesForUserDocuments() async throws {
        try await withLiveServer({ $0.designFunctions = serverEngine }) { (server: LiveServer) async throws in
            try await Self.checkUserDocumentRules(server)
        }
    }

    @Test func aServerWithoutJavaScriptChecksTheSameShapeNatively() async throws {
        try await withLiveServer { server in
            try await Self.checkUserDocumentRules(server)
        }
    }

    private static func checkUserDocumentRules(_ server: LiveServer) async throws {
        func refusal(_ document: JSONValue) async throws -> String? {
            let id = document["_id"]?.stringValue ?? "org.couchdb.user:x"
            let answer = try await server.admin.put("/_users/\(id)", document)
            guard answer.status == 403 else { return answer.status == 201 ? nil : "status \(answer.status)" }
            return answer.json["reason"]?.stringValue
        }
        let base: JSONObject = ["_id": "org.couchdb.user:joe", "name": "joe", "roles": [], "type": "user", "password": "pw"]
        func with(_ changes: JSONObject) -> JSONValue {
            var document = base
            for (key, value) in changes.members { document[key] = value == .string("<drop>") ? nil : value }
            return .object(document)
        }
        #expect(try await refusal(with(["type": "person"])) == "doc.type must be user")
        #expect(try await refusal(with(["roles": "<drop>"])) == "doc.roles must exist")
        #expect(try await refusal(with(["roles": "admin"])) == "doc.roles must be an array")
        #expect(try await refusal(with(["roles": [12]])) == "doc.roles can only contain strings")
        #expect(try await refusal(with(["_id": "org.couchdb.user:someone"])) == "Doc ID must be of the form org.couchdb.user:name")
        #expect(try await refusal(with(["roles": ["_admin"]])) == "No system roles (starting with underscore) in users db.")
        #expect(try await refusal(with(["_id": "org.couchdb.user:_joe", "name": "_joe"])) == "Username may not start with underscore.")
        #expect(try await refusal(with(["_id": "org.couchdb.user:jo:e", "name": "jo:e"])) == "Character `:` is not allowed in usernames.")
        #expect(try await refusal(with(["roles": ["_metrics", "nurse"]])) == nil)
    }

    @Test func aUserWhoseDocumentHasConflictsCannotLogInUntilTheyAreResolved() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.put("/_users/org.couchdb.user:ann", user("ann", "pw"))
            #expect(try await server.client("ann", "pw").get("/_session").json["userCtx"]?["name"] == "ann")
            let current = try await server.admin.get("/_users/org.couchdb.user:ann").json
            var branch = current.objectValue ?? [:]
            branch["_rev"] = .string("2-" + String(repeating: "a", count: 32))
            branch["_revisions"] = nil
            _ = try await server.admin.post("/_users/_bulk_docs", ["docs": [.object(branch)], "new_edits": false])
            let refused = try await server.client("ann", "pw").get("/_all_dbs")
            #expect(refused.status == 401)
            #expect(refused.json["reason"] == .string(Authenticator.conflictedUserReason))
            _ = try await server.admin.put("\(config)/chttpd_auth/allow_conflicted_user_docs", "true")
            #expect(try await server.client("ann", "pw").get("/_session").json["userCtx"]?["name"] == "ann")
        }
    }

    @Test func passwordsMustMatchTheConfiguredRequirements() async throws {
        try await withLiveServer { server in
            let requirements = #"[{".{10,}"}, {"[A-Z]+", "Needs a capital."}, {"[a-z]+", ""}, {"\\d+", "Needs a digit."}, "[!.]+"]"#
            #expect(try await server.admin.put("\(config)/couch_httpd_auth/password_regexp", .string(requirements)).status == 200)
            func reason(_ password: String) async throws -> String? {
                let answer = try await server.admin.put("/_users/org.couchdb.user:joe", user("joe", password))
                return answer.status == 400 ? answer.json["reason"]?.stringValue : nil
            }
            #expect(try await reason("short") == "Password does not conform to requirements.")
            #expect(try await reason("longenough") == "Password does not conform to requirements. Needs a capital.")
            #expect(try await reason("LONGENOUGH") == "Password does not conform to requirements.")
            #expect(try await reason("LongEnough") == "Password does not conform to requirements. Needs a digit.")
            #expect(try await reason("LongEnough1") == "Password does not conform to requirements.")
            #expect(try await reason("LongEnough1!") == nil)
            // A setting that is not a list of such items refuses every password, as CouchDB does.
            _ = try await server.admin.put("\(config)/couch_httpd_auth/password_regexp", #"{{".{10,}"}}"#)
            let unreadable = try await server.admin.put("/_users/org.couchdb.user:kim", user("kim", "LongEnough1!"))
            #expect(unreadable.status == 403 && unreadable.json["reason"] == "Server cannot hash passwords at this time.")
        }
    }
}
