import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// Logins cost the same key derivation whether the name exists or not (so their timing tells no one which
/// names exist), and repeated failures are throttled per name and per client address.
@Suite("Login: equal work and throttling")
struct LoginThrottleTests {
    /// An hour: no failure ages out while a test runs, however slow the machine.
    static let longWindow = 3_600

    private func addUser(_ name: String, on server: LiveServer) async throws {
        let user: JSONValue = ["name": .string(name), "password": .string("pw-\(name)"), "roles": [], "type": "user"]
        #expect(try await server.admin.put("/_users/org.couchdb.user:\(name)", user).status == 201)
    }

    @Test func anUnknownUserCostsTheSameKeyDerivationAsAWrongPassword() async throws {
        try await withLiveServer { server in
            try await addUser("bob", on: server)
            let derivations = server.server.endpoint.authenticator.derivations
            let before = derivations.withLock { $0 }
            #expect(try await server.client("bob", "wrong").get("/_all_dbs").status == 401)
            let afterKnown = derivations.withLock { $0 }
            #expect(try await server.client("nobody", "wrong").get("/_all_dbs").status == 401)
            let afterUnknown = derivations.withLock { $0 }
            #expect(afterKnown - before == 1)
            #expect(afterUnknown - afterKnown == 1)
        }
    }

    @Test func aUserNameIsRefusedAfterTooManyFailuresEvenWithTheRightPassword() async throws {
        let policy = LoginThrottlePolicy(maxFailuresPerUser: 3, maxFailuresPerAddress: 100, window: Self.longWindow)
        try await withLiveServer({ $0.loginThrottle = policy }) { server in
            try await addUser("bob", on: server)
            for _ in 0..<3 { #expect(try await server.client("bob", "guess").get("/_all_dbs").status == 401) }
            let refused = try await server.client("bob", "pw-bob").get("/_all_dbs")
            #expect(refused.status == 429)
            #expect(refused.json["error"] == "too_many_requests")
            #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
            // Through `_session` as well, and for an unknown name exactly as for a known one.
            let session = try await server.anonymous.post("/_session", ["name": "bob", "password": "pw-bob"])
            #expect(session.status == 429)
            for _ in 0..<3 { _ = try await server.client("ghost", "guess").get("/_all_dbs") }
            #expect(try await server.client("ghost", "guess").get("/_all_dbs").status == 429)
            // Other users are not affected.
            #expect(try await server.admin.get("/_all_dbs").status == 200)
        }
    }

    @Test func anAddressIsRefusedAfterTooManyFailuresAcrossNames() async throws {
        let policy = LoginThrottlePolicy(maxFailuresPerUser: 100, maxFailuresPerAddress: 4, window: Self.longWindow)
        try await withLiveServer({ $0.loginThrottle = policy }) { (server: LiveServer) async throws in
            for index in 0..<4 { #expect(try await server.client("user\(index)", "guess").get("/_all_dbs").status == 401) }
            #expect(try await server.client("user9", "guess").get("/_all_dbs").status == 429)
            #expect(try await server.admin.get("/_all_dbs").status == 429)  // same address: the admin waits too
        }
    }

    @Test func failuresAgeOutOfTheWindowAndSuccessClearsTheUsersCount() {
        let clock = Locked<Double>(1000)
        let throttle = LoginThrottle(
            policy: LoginThrottlePolicy(maxFailuresPerUser: 2, maxFailuresPerAddress: 10, window: 60),
            now: { clock.withLock { $0 } })
        throttle.recordFailure(user: "bob", address: "10.0.0.1")
        clock.withLock { $0 += 30 }
        throttle.recordFailure(user: "bob", address: "10.0.0.1")
        #expect(throttle.retryAfter(user: "bob", address: "10.0.0.2") == 30)
        clock.withLock { $0 += 31 }
        #expect(throttle.retryAfter(user: "bob", address: "10.0.0.2") == nil)
        throttle.recordFailure(user: "bob", address: nil)
        throttle.recordSuccess(user: "bob")
        throttle.recordFailure(user: "bob", address: nil)
        #expect(throttle.retryAfter(user: "bob", address: nil) == nil)
    }

    @Test func manyNamesDoNotGrowTheTableWithoutBound() {
        let throttle = LoginThrottle(policy: LoginThrottlePolicy())
        for index in 0..<(LoginThrottle.trackedKeysLimit + 100) { throttle.recordFailure(user: "u\(index)", address: nil) }
        #expect(throttle.trackedKeys <= LoginThrottle.trackedKeysLimit)
    }
}
