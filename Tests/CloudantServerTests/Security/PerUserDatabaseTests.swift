import CloudantCore
import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

@Suite("Per-user databases, as CouchDB's couch_peruser")
struct PerUserDatabaseTests {
    private static func perUser(_ configuration: inout ServerConfiguration) {
        configuration.perUserDatabases = PerUserDatabases()
    }

    private func addUser(_ name: String, on server: LiveServer) async throws {
        let user: JSONValue = ["name": .string(name), "password": .string("pw-\(name)"), "roles": [], "type": "user"]
        #expect(try await server.admin.put("/_users/org.couchdb.user:\(name)", user).status == 201)
    }

    private func deleteUser(_ name: String, on server: LiveServer) async throws {
        let id = "/_users/org.couchdb.user:\(name)"
        let rev = try #require(try await server.admin.get(id).json["_rev"]?.stringValue)
        #expect(try await server.admin.send("DELETE", "\(id)?rev=\(rev)").status == 200)
    }

    @Test func theDatabaseIsNamedByTheHexOfTheUserNameWithCouchDBsPrefix() {
        #expect(PerUserDatabases().databaseName(forUser: "bob") == "userdb-626f62")
        #expect(PerUserDatabases().databaseName(forUser: "Zoë") == "userdb-5a6fc3ab")
        #expect(PerUserDatabases(prefix: "private-").databaseName(forUser: "a") == "private-61")
    }

    @Test func creatingAUserCreatesTheirPrivateDatabaseBeforeTheWriteIsAnswered() async throws {
        try await withLiveServer(Self.perUser) { server in
            try await addUser("bob", on: server)
            try await addUser("carol", on: server)
            let security = try await server.admin.get("/userdb-626f62/_security").json
            // The object the database was created with (`default_security = admin_only`) with bob added to
            // both sides, as `couch_peruser:add_user/3` adds him.
            #expect(security == ["members": ["roles": ["_admin"], "names": ["bob"]], "admins": ["roles": ["_admin"], "names": ["bob"]]])
            let bob = server.client("bob", "pw-bob")
            #expect(try await bob.put("/userdb-626f62/diary", ["mood": "good"]).status == 201)
            #expect(try await bob.get("/userdb-626f62/diary").json["mood"] == "good")
            // Database admin: bob may add a design document; carol may not even read.
            #expect(try await bob.put("/userdb-626f62/_design/app", ["language": "query"]).status == 201)
            let carol = server.client("carol", "pw-carol")
            #expect(try await carol.get("/userdb-626f62/diary").status == 403)
            #expect(try await carol.get("/userdb-626f62/_all_docs").status == 403)
            #expect(try await carol.get("/userdb-6361726f6c").status == 200)
        }
    }

    @Test func usersCreatedThroughBulkDocsGetTheirDatabaseToo() async throws {
        try await withLiveServer(Self.perUser) { server in
            let users: JSONValue = [
                "docs": [
                    ["_id": "org.couchdb.user:dan", "name": "dan", "password": "x", "roles": [], "type": "user"],
                    ["_id": "org.couchdb.user:eve", "name": "eve", "password": "y", "roles": [], "type": "user"],
                ]
            ]
            let written = try await server.admin.post("/_users/_bulk_docs", users)
            #expect(written.status == 201)
            let dan = try await server.admin.get("/userdb-64616e")
            let eve = try await server.admin.get("/userdb-657665")
            #expect(dan.status == 200 && eve.status == 200)
        }
    }

    @Test func deletingAUserKeepsTheDatabaseButTakesTheUserOutOfItsSecurity() async throws {
        try await withLiveServer(Self.perUser) { server in
            try await addUser("bob", on: server)
            #expect(try await server.admin.put("/userdb-626f62/kept", ["v": 1]).status == 201)
            try await deleteUser("bob", on: server)
            let security = try await server.admin.get("/userdb-626f62/_security").json
            // Bob taken out again: admin-only, as it was created, not a database open to every user.
            #expect(security == ["members": ["roles": ["_admin"], "names": []], "admins": ["roles": ["_admin"], "names": []]])
            #expect(try await server.admin.get("/userdb-626f62/kept").status == 200)
            // A new bob gets the same database back (the data was kept for a returning user).
            try await addUser("bob", on: server)
            #expect(try await server.client("bob", "pw-bob").get("/userdb-626f62/kept").status == 200)
        }
    }

    @Test func withDeleteWithUserDeletingTheUserDeletesTheDatabase() async throws {
        let deleting: (inout ServerConfiguration) -> Void = { $0.perUserDatabases = PerUserDatabases(deleteWithUser: true) }
        try await withLiveServer(deleting) { server in
            try await addUser("bob", on: server)
            #expect(try await server.admin.get("/userdb-626f62").status == 200)
            try await deleteUser("bob", on: server)
            #expect(try await server.admin.get("/userdb-626f62").status == 404)
        }
    }

    @Test func anAdminsExtraSecurityEntriesAreKept() async throws {
        try await withLiveServer(Self.perUser) { server in
            try await addUser("bob", on: server)
            let widened: JSONValue = [
                "admins": ["names": ["bob"], "roles": []], "members": ["names": ["bob"], "roles": ["clinicians"]],
            ]
            #expect(try await server.admin.put("/userdb-626f62/_security", widened).status == 200)
            var document = try #require(try await server.admin.get("/_users/org.couchdb.user:bob").json.objectValue)
            document["password"] = "again"
            #expect(try await server.admin.put("/_users/org.couchdb.user:bob", .object(document)).status == 201)
            #expect(try await server.admin.get("/userdb-626f62/_security").json == widened)
        }
    }

    @Test func usersThatExistedBeforeTheOptionWasTurnedOnGetTheirDatabaseAtStart() async throws {
        let first = try await LiveServer.start()
        try await addUser("bob", on: first)
        #expect(try await first.admin.get("/userdb-626f62").status == 404)
        await first.stop(keepingFolder: true)
        let second = try await LiveServer.start(folder: first.folder, Self.perUser)
        #expect(try await second.admin.get("/userdb-626f62/_security").json["members"]?["names"] == ["bob"])
        await second.stop()
    }

    @Test func withoutTheOptionNoDatabaseIsCreated() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let names = try await server.admin.get("/_all_dbs").json.arrayValue ?? []
            #expect(!names.contains("userdb-626f62"))
            #expect(try await server.admin.get("/userdb-626f62").status == 404)
        }
    }
}
