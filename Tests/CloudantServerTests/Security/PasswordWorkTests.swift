import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// The work a login costs is the server's to choose: users cannot set their hash's parameters, a stored hash
/// outside the server's bounds is refused without being computed, and derivations run on threads of their own,
/// a bounded number at a time, so no user (logged in or not) can stall the server.
@Suite("Password hashing: pinned, bounded, off the cooperative pool")
struct PasswordWorkTests {
    private static func createBob(_ server: LiveServer) async throws {
        let user: JSONValue = ["name": "bob", "password": "pw-bob", "roles": ["staff"], "type": "user"]
        #expect(try await server.admin.put("/_users/org.couchdb.user:bob", user).status == 201)
    }

    @Test func aUserCannotSetTheParametersOfTheirOwnPasswordHash() async throws {
        try await withLiveServer { server in
            try await Self.createBob(server)
            let bob = server.client("bob", "pw-bob")
            let own = try await bob.get("/_users/org.couchdb.user:bob").json
            var slow = try #require(own.objectValue)
            slow["iterations"] = 60_000_000
            let refused = try await bob.put("/_users/org.couchdb.user:bob", .object(slow))
            #expect(refused.status == 403 && refused.json["reason"]?.stringValue?.contains("iterations") == true, "\(refused.text)")
            for (field, value) in [("salt", JSONValue.string("00")), ("derived_key", "00"), ("pbkdf2_prf", "sha512")] {
                var changed = try #require(own.objectValue)
                changed[field] = value
                #expect(try await bob.put("/_users/org.couchdb.user:bob", .object(changed)).status == 403, "\(field)")
            }
            // Other members may change; and with a new password the server hashes it with its own parameters.
            var profile = try #require(own.objectValue)
            profile["nickname"] = "bobby"
            let updated = try await bob.put("/_users/org.couchdb.user:bob", .object(profile))
            #expect(updated.status == 201)
            var renewed = try #require(try await bob.get("/_users/org.couchdb.user:bob").json.objectValue)
            renewed["password"] = "pw-new"
            renewed["iterations"] = 60_000_000
            #expect(try await bob.put("/_users/org.couchdb.user:bob", .object(renewed)).status == 201)
            let stored = try await server.admin.get("/_users/org.couchdb.user:bob").json
            #expect(stored["iterations"] == 1_000 && stored["pbkdf2_prf"] == "sha256" && stored["password"] == nil)
            #expect(try await server.client("bob", "pw-new").get("/_session").json["userCtx"]?["name"] == "bob")
        }
    }

    @Test func aStoredHashBeyondTheServersBoundIsRefusedWithoutBeingComputed() async throws {
        try await withLiveServer { server in
            // An admin (or a replication) may store any hash; a login against this one is refused as CouchDB's
            // `max_iterations` refuses it, before any derivation.
            let user: JSONValue = [
                "name": "eve", "type": "user", "roles": [], "password_scheme": "pbkdf2", "pbkdf2_prf": "sha256",
                "iterations": 60_000_000, "salt": "5a1t", "derived_key": .string(String(repeating: "0", count: 64)),
            ]
            #expect(try await server.admin.put("/_users/org.couchdb.user:eve", user).status == 201)
            let derivations = server.server.endpoint.authenticator.derivations
            let before = derivations.withLock { $0 }
            let login = try await server.anonymous.send(
                "POST", "/_session", body: Data(#"{"name":"eve","password":"guess"}"#.utf8), contentType: "application/json")
            #expect(login.status == 403 && login.json["reason"] == "Iteration count is too high for this server")
            let basic = try await server.client("eve", "guess").get("/_all_dbs")
            #expect(basic.status == 403)
            #expect(derivations.withLock { $0 } == before)
        }
    }

    @Test func loginsHashOffTheCooperativePoolWhileOtherRequestsGoOn() async throws {
        try await withLiveServer({
            $0.loginThrottle = LoginThrottlePolicy(maxFailuresPerUser: 100, maxFailuresPerAddress: 100)
        }) { server in
            let hashing = server.server.endpoint.hashing
            // Every hashing thread is held by a job that waits for the gate, so the logins below stay queued for
            // as long as the test looks (no race with how fast a derivation is on this machine).
            let gate = Gate()
            let holders = (0..<hashing.width).map { _ in Task { try await hashing.run(client: "held") { gate.wait() } } }
            try await waitUntil { hashing.running == hashing.width }
            let body = Data(#"{"name":"nobody","password":"guess"}"#.utf8)
            let anonymous = server.anonymous
            let logins = (0..<2).map { _ in
                Task { try await anonymous.send("POST", "/_session", body: body, contentType: "application/json").status }
            }
            try await waitUntil { hashing.waiting == 2 }
            // A third from the same client is refused at once rather than queued behind them …
            let third = try await anonymous.send("POST", "/_session", body: body, contentType: "application/json")
            #expect(third.status == 429 && third.header("Retry-After") == "1")
            // … and the server answers other requests while they wait for a hashing thread.
            #expect(try await anonymous.get("/_up").status == 200)
            #expect(hashing.waiting == 2)
            gate.open()
            for holder in holders { try await holder.value }
            for login in logins { #expect(try await login.value == 401) }
        }
    }

    @Test func thePoolRefusesPastItsQueueAndLetsACancelledJobGo() async throws {
        let pool = PasswordHashingPool(width: 1, queueLimit: 1, perClientLimit: 5)
        let gate = Gate()
        defer { gate.open() }  // a failed expectation below must not leave the hashing thread held
        let running = Task { try await pool.run(client: "a") { gate.wait() } }
        // Taken from the queue by the hashing thread, so the one waiting job below is b's.
        try await waitUntil { pool.running == 1 && pool.waiting == 0 }
        let waiting = Task { try await pool.run(client: "b") { 1 } }
        try await waitUntil { pool.waiting == 1 }
        await #expect(throws: PasswordHashingPool.Refusal.serverBusy) { try await pool.run(client: "c") { 2 } }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(pool.waiting == 0)
        gate.open()
        try await running.value
        #expect(try await pool.run(client: "a") { 3 } == 3)
    }

    @Test func aJobCancelledWhileItIsBeingQueuedNeverWaits() async throws {
        // The cancellation handler runs on the cancelling thread, at any moment of `run`: before the job is
        // admitted, between its admission and its place in the queue, or once it waits there. Each job is
        // cancelled after a pause of its own length, so the many jobs land in every one of those moments; every
        // one must end with CancellationError, none left queued behind the held thread.
        let pool = PasswordHashingPool(width: 1, queueLimit: 2_000, perClientLimit: 2_000)
        let gate = Gate()
        defer { gate.open() }
        let holder = Task { try await pool.run(client: nil) { gate.wait() } }
        try await waitUntil { pool.running == 1 && pool.waiting == 0 }
        let ended = Locked(0)
        var jobs: [Task<Bool, Never>] = []
        for _ in 0..<2_000 {
            let job = Task { () -> Bool in
                defer { ended.withLock { $0 += 1 } }
                do {
                    _ = try await pool.run(client: "c") { 1 }
                    return false
                } catch {
                    return error is CancellationError
                }
            }
            var spin = 0
            for step in 0..<(jobs.count * 37 % 3_000) { spin &+= step }
            job.cancel()
            jobs.append(job)
            #expect(spin >= 0)
        }
        try await waitUntil("every cancelled job ended") { ended.withLock { $0 } == 2_000 }
        for job in jobs { #expect(await job.value, "a cancelled job ended without CancellationError") }
        #expect(pool.waiting == 0)
        #expect(pool.share(of: "c") == 0, "each cancelled job gave its client's place back")
        gate.open()
        try await holder.value
        #expect(try await pool.run(client: "c") { 4 } == 4)
    }
}

