import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// CouchDB's authentication lockout (`chttpd_auth_lockout`) and its reading of basic-auth headers and
/// `POST /_session` bodies.
@Suite("Authentication lockout and credentials")
struct AuthLockoutTests {
    private let config = "/_node/_local/_config"

    @Test func fiveFailuresFromOneAddressLockTheNameOutUntilItsPasswordChanges() async throws {
        // The throttle's own limits are out of the way: this is CouchDB's rule.
        try await withLiveServer({ $0.loginThrottle = LoginThrottlePolicy(maxFailuresPerUser: 100, maxFailuresPerAddress: 100) }) {
            (server: LiveServer) async throws in
            _ = try await server.admin.put("\(config)/admins/jan", "apple")
            for _ in 0..<5 { #expect(try await server.client("jan", "pear").get("/_all_dbs").status == 401) }
            let locked = try await server.client("jan", "apple").get("/_all_dbs")
            #expect(locked.status == 403)
            #expect(locked.json["reason"] == "Account is temporarily locked due to multiple authentication failures")
            // A new password is a new salt: a new count.
            _ = try await server.admin.put("\(config)/admins/jan", "apple")
            #expect(try await server.client("jan", "apple").get("/_all_dbs").status == 200)
        }
    }

    @Test func warnAndOffModesNeverLockOut() async throws {
        try await withLiveServer({ $0.loginThrottle = LoginThrottlePolicy(maxFailuresPerUser: 100, maxFailuresPerAddress: 100) }) {
            (server: LiveServer) async throws in
            _ = try await server.admin.put("\(config)/admins/jan", "apple")
            _ = try await server.admin.put("\(config)/chttpd_auth_lockout/mode", "warn")
            for _ in 0..<6 { #expect(try await server.client("jan", "pear").get("/_all_dbs").status == 401) }
            #expect(try await server.client("jan", "apple").get("/_all_dbs").status == 200)
            _ = try await server.admin.put("\(config)/chttpd_auth_lockout/threshold", "2")
            _ = try await server.admin.put("\(config)/chttpd_auth_lockout/mode", "enforce")
            #expect(try await server.client("jan", "apple").get("/_all_dbs").status == 403)
        }
    }

    @Test func aCountLivesItsLifetimeFromTheFirstFailure() {
        let clock = Locked<Double>(100)
        let lockout = AuthLockout(settings: { AuthLockout.Settings(mode: .enforce, threshold: 2, lifetime: 60) }, now: { clock.withLock { $0 } })
        lockout.recordFailure(address: "10.0.0.1", user: "jan", salt: "s")
        clock.withLock { $0 += 50 }
        lockout.recordFailure(address: "10.0.0.1", user: "jan", salt: "s")
        #expect(lockout.isLockedOut(address: "10.0.0.1", user: "jan", salt: "s"))
        #expect(!lockout.isLockedOut(address: "10.0.0.2", user: "jan", salt: "s"))
        #expect(!lockout.isLockedOut(address: nil, user: "jan", salt: "s"))
        clock.withLock { $0 += 11 }
        #expect(!lockout.isLockedOut(address: "10.0.0.1", user: "jan", salt: "s"))
    }

    @Test func basicCredentialsOfNobodyAreAnonymousAndBadBase64IsABadRequest() async throws {
        try await withLiveServer { server in
            // `_:_` is CouchDB's way to send no credentials; a token without `:` names nobody either.
            for token in ["Xzpf", Data("nocolon".utf8).base64EncodedString()] {
                let answer = try await server.anonymous.get("/_session", headers: ["Authorization": "Basic " + token])
                #expect(answer.status == 200 && answer.json["userCtx"]?["name"] == .null)
                #expect(answer.json["info"]?["authenticated"] == nil)
            }
            let bad = try await server.anonymous.get("/_session", headers: ["Authorization": "Basic %%%"])
            #expect(bad.status == 400 && bad.json["reason"] == "Authorization header has invalid base64 value")
        }
    }

    @Test func aSessionIsStartedWithNameOrUsernameAndAMissingPasswordIsEmpty() async throws {
        try await withLiveServer { server in
            let name = LiveServer.admin.name
            let password = LiveServer.admin.password
            let byUsername = try await server.anonymous.post("/_session", ["username": .string(name), "password": .string(password)])
            #expect(byUsername.status == 200 && byUsername.json["name"] == .string(name))
            let both = try await server.anonymous.post("/_session", ["name": .string(name), "username": "other", "password": .string(password)])
            #expect(both.status == 400 && both.json["reason"] == "request body contains different usernames")
            let none = try await server.anonymous.post("/_session", ["password": .string(password)])
            #expect(none.status == 400 && none.json["reason"] == "request body must contain a username")
            #expect(try await server.anonymous.post("/_session", ["name": .string(name)]).status == 401)
            let cookie = try #require(byUsername.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            let info = try await TestClient(baseURL: server.baseURL, user: nil, cookie: cookie).get("/_session").json
            #expect(info["info"]?["authenticated"] == "cookie")
        }
    }
}
