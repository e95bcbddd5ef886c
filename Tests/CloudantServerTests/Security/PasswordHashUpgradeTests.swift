import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Synchronization
import Testing

/// CouchDB 3.5's `upgrade_hash_on_auth`: a password login brings the user document's hash to the server's
/// current parameters, keeping its salt, after the request that logged in is answered.
@Suite("Password hashes upgraded on login")
struct PasswordHashUpgradeTests {
    private static let user: JSONValue = ["name": "bob", "password": "pw-bob", "roles": [], "type": "user"]

    private static func storedBob(_ server: LiveServer) async throws -> JSONObject {
        try #require(try await server.admin.get("/_users/org.couchdb.user:bob").json.objectValue)
    }

    @Test func aLoginRehashesWithTheCurrentParametersKeepingTheSaltAndTheSessions() async throws {
        try await withLiveServer { server in
            #expect(try await server.admin.put("/_users/org.couchdb.user:bob", Self.user).status == 201)
            let before = try await Self.storedBob(server)
            let login = try await server.anonymous.post("/_session", ["name": "bob", "password": "pw-bob"])
            let cookie = try #require(login.header("Set-Cookie").map { String($0.split(separator: ";")[0]) })
            let iterations = try #require(before["iterations"]?.numberValue?.int64Value)
            let raised = String(iterations + 1)
            #expect(try await server.admin.put("/_node/_local/_config/chttpd_auth/iterations", .string(raised)).status == 200)
            #expect(try await server.admin.put("/_node/_local/_config/chttpd_auth/pbkdf2_prf", "sha512").status == 200)

            #expect(try await server.client("bob", "pw-bob").get("/_session").json["userCtx"]?["name"] == "bob")
            try await waitUntil("bob's hash upgraded") {
                try await Self.storedBob(server)["iterations"]?.numberValue?.int64Value == iterations + 1
            }
            let after = try await Self.storedBob(server)
            #expect(after["pbkdf2_prf"] == "sha512")
            #expect(after["salt"] == before["salt"])
            #expect(after["derived_key"]?.stringValue?.count == 128 && after["derived_key"] != before["derived_key"])
            #expect(after["password"] == nil && after["preserve_salt"] == nil)
            // The same password still logs in, and the session made before the upgrade is still good.
            #expect(try await server.client("bob", "pw-bob").get("/_session").json["userCtx"]?["name"] == "bob")
            let session = TestClient(baseURL: server.baseURL, user: nil, cookie: cookie)
            #expect(try await session.get("/_session").json["userCtx"]?["name"] == "bob")
        }
    }

    @Test func aPasswordChangeInTheLoggingInRequestIsWrittenAndNotUndone() async throws {
        let server = try await LiveServer.start()
        #expect(try await server.admin.put("/_users/org.couchdb.user:bob", Self.user).status == 201)
        #expect(try await server.admin.put("/_node/_local/_config/chttpd_auth/pbkdf2_prf", "sha512").status == 200)
        var changed = try await Self.storedBob(server)
        let oldSalt = changed["salt"]
        changed["password"] = "pw-new"
        // Logs in with the old hash (an upgrade is due) and changes the password in the same request.
        #expect(try await server.client("bob", "pw-bob").put("/_users/org.couchdb.user:bob", .object(changed)).status == 201)
        // A stopping server lets its upgrades finish: the one started after the answer met a newer
        // revision and wrote nothing.
        let restarted = try await server.restart()
        let stored = try await Self.storedBob(restarted)
        #expect(stored["_rev"]?.stringValue?.hasPrefix("2-") == true)
        #expect(stored["salt"] != oldSalt && stored["pbkdf2_prf"] == "sha512")
        #expect(try await restarted.client("bob", "pw-new").get("/_session").json["userCtx"]?["name"] == "bob")
        await restarted.stop()
    }

    @Test func needsUpgradeFollowsCouchDBsRule() {
        let settings = UsersDatabase.PasswordSettings(iterations: 10, prf: "sha256")
        let current: JSONObject = ["password_scheme": "pbkdf2", "pbkdf2_prf": "sha256", "iterations": 10]
        #expect(!PasswordHashUpgrade.needsUpgrade(current, to: settings))
        var fewer = current
        fewer["iterations"] = 9
        #expect(PasswordHashUpgrade.needsUpgrade(fewer, to: settings))
        var couchDB2 = current
        couchDB2["pbkdf2_prf"] = nil  // CouchDB 2 wrote none: `sha`
        #expect(PasswordHashUpgrade.needsUpgrade(couchDB2, to: settings))
        #expect(PasswordHashUpgrade.needsUpgrade(["password_scheme": "simple", "salt": "00"], to: settings))
    }

    @Test func anUpgradeWaitsForTheRequestAndIsHeldOffAfterwards() async throws {
        let writes = Mutex<[JSONObject]>([])
        let enabled = Mutex(true)
        let upgrade = PasswordHashUpgrade(
            settings: { .init(enabled: enabled.withLock { $0 }, password: .init(iterations: 2, prf: "sha256")) },
            hashing: PasswordHashingPool(), write: { document in writes.withLock { $0.append(document) } })
        let document: JSONObject = [
            "_id": "org.couchdb.user:bob", "_rev": "1-a", "name": "bob", "type": "user", "roles": [],
            "password_scheme": "pbkdf2", "pbkdf2_prf": "sha256", "iterations": 1, "salt": "5a17", "derived_key": "00",
        ]
        enabled.withLock { $0 = false }
        upgrade.consider(name: "bob", password: "pw-bob", document: document)
        await upgrade.finished()
        #expect(writes.withLock { $0.isEmpty })

        enabled.withLock { $0 = true }
        let deferral = PasswordHashUpgrade.Deferral()
        PasswordHashUpgrade.$deferral.withValue(deferral) {
            upgrade.consider(name: "bob", password: "pw-bob", document: document)
        }
        await upgrade.finished()
        #expect(writes.withLock { $0.isEmpty }, "nothing starts before the request's answer")
        deferral.startPending()
        await upgrade.finished()
        let written = try #require(writes.withLock { $0.first })
        #expect(written["_rev"] == "1-a" && written["salt"] == "5a17" && written["iterations"] == 2)
        // Just after an upgrade, logins start none (CouchDB holds the name for five seconds).
        upgrade.consider(name: "bob", password: "pw-bob", document: document)
        await upgrade.finished()
        #expect(writes.withLock { $0.count } == 1)
    }

    @Test func endedHoldsAreDroppedWhenTheNextUpgradeStarts() async throws {
        // With no hold after an upgrade, every ended hold has expired by the time the next login comes.
        let upgrade = PasswordHashUpgrade(
            settings: { .init(enabled: true, password: .init(iterations: 2, prf: "sha256")) },
            hashing: PasswordHashingPool(), holdAfterUpgrade: .zero, write: { _ in })
        for name in ["ann", "bob", "cy"] {
            let document: JSONObject = [
                "_id": .string("org.couchdb.user:\(name)"), "_rev": "1-a", "name": .string(name), "type": "user",
                "roles": [], "password_scheme": "pbkdf2", "pbkdf2_prf": "sha256", "iterations": 1, "salt": "5a17",
                "derived_key": "00",
            ]
            upgrade.consider(name: name, password: "pw", document: document)
            await upgrade.finished()
            #expect(upgrade.heldNameCount == 1, "only \(name)'s hold is left")
        }
    }
}
