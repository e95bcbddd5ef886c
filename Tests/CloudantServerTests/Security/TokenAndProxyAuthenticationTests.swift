import CloudantCore
import Crypto
import CryptoExtras
import CloudantTestSupport
import Foundation
import Testing

/// JWT bearer tokens and proxy headers, read as CouchDB's `jwt_authentication_handler` and
/// `proxy_authentication_handler` read them once `chttpd/authentication_handlers` names them.
@Suite("JWT and proxy authentication")
struct TokenAndProxyAuthenticationTests {
    private let config = "/_node/_local/_config"
    private static let handlers =
        "{chttpd_auth, jwt_authentication_handler}, {chttpd_auth, proxy_authentication_handler}, "
        + "{chttpd_auth, cookie_authentication_handler}, {chttpd_auth, default_authentication_handler}"

    private static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A token of `claims` signed by `sign` over `HEADER.PAYLOAD`.
    private static func token(_ algorithm: String, _ claims: JSONValue, kid: String? = nil, sign: ([UInt8]) throws -> [UInt8]) rethrows -> String {
        var header: JSONObject = ["alg": .string(algorithm), "typ": "JWT"]
        if let kid { header["kid"] = .string(kid) }
        let signed = base64URL(JSONValue.object(header).jsonBytes()) + "." + base64URL(claims.jsonBytes())
        return signed + "." + base64URL(try sign(Array(signed.utf8)))
    }

    private static func claims(expiresIn seconds: Double = 60, _ extra: JSONObject = [:]) -> JSONValue {
        var claims: JSONObject = [
            "sub": "couch@apache.org", "_couchdb.roles": ["testing"],
            "exp": .number(JSONNumber(Int(Date().timeIntervalSince1970 + seconds))),
        ]
        for (key, value) in extra.members { claims[key] = value }
        return .object(claims)
    }

    private func session(_ server: LiveServer, bearer token: String) async throws -> HTTPAnswer {
        try await server.anonymous.get("/_session", headers: ["Authorization": "Bearer " + token])
    }

    private func enable(_ server: LiveServer, _ settings: [(String, String)]) async throws {
        #expect(try await server.admin.put("\(config)/chttpd/authentication_handlers", .string(Self.handlers)).status == 200)
        for (path, value) in settings { #expect(try await server.admin.put("\(config)/\(path)", .string(value)).status == 200) }
    }

    @Test func hmacTokensOfEachHashNameTheUserAndRoles() async throws {
        try await withLiveServer { server in
            let secret = Array("zxczxc12zxczxc12".utf8)
            try await enable(server, [("jwt_keys/hmac:_default", Data(secret).base64EncodedString())])
            let key = SymmetricKey(data: secret)
            let tokens = [
                Self.token("HS256", Self.claims()) { Array(HMAC<SHA256>.authenticationCode(for: $0, using: key)) },
                Self.token("HS384", Self.claims()) { Array(HMAC<SHA384>.authenticationCode(for: $0, using: key)) },
                Self.token("HS512", Self.claims()) { Array(HMAC<SHA512>.authenticationCode(for: $0, using: key)) },
            ]
            for token in tokens {
                let answer = try await session(server, bearer: token).json
                #expect(answer["userCtx"] == ["name": "couch@apache.org", "roles": ["testing"]])
                #expect(answer["info"]?["authenticated"] == "jwt")
                #expect(answer["info"]?["authentication_handlers"] == ["jwt", "proxy", "cookie", "default"])
            }
            let forged = Self.token("HS256", Self.claims()) { _ in Array(repeating: 1, count: 32) }
            let refused = try await session(server, bearer: forged)
            #expect(refused.status == 400 && refused.json["reason"] == "Bad HMAC")
        }
    }

    @Test func rsaAndECTokensAreCheckedWithThePublicKeyInTheConfiguration() async throws {
        try await withLiveServer { server in
            let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
            let ec = P256.Signing.PrivateKey()
            let oneLine = { (pem: String) in pem.replacingOccurrences(of: "\n", with: "\\n") }
            try await enable(
                server,
                [
                    ("jwt_keys/rsa:_default", oneLine(rsa.publicKey.pemRepresentation)),
                    ("jwt_keys/ec:signer", oneLine(ec.publicKey.pemRepresentation)),
                ])
            let rs256 = try Self.token("RS256", Self.claims()) {
                Array(try rsa.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation)
            }
            #expect(try await session(server, bearer: rs256).json["info"]?["authenticated"] == "jwt")
            // ES384 with a P-256 key: the hash the algorithm names over whatever curve the key has, as CouchDB.
            let es384 = try Self.token("ES384", Self.claims(), kid: "signer") {
                Array(try ec.signature(for: SHA384.hash(data: $0)).rawRepresentation)
            }
            #expect(try await session(server, bearer: es384).json["userCtx"]?["name"] == "couch@apache.org")
            // CouchDB's `jwtf` writes `r` and `s` as wide as the algorithm's bits whatever the curve: an ES512
            // token from a P-256 key carries two 64-byte halves.
            for (algorithm, width) in [("ES384", 48), ("ES512", 64)] {
                let widened = try Self.token(algorithm, Self.claims(), kid: "signer") { message in
                    let signature: [UInt8] =
                        algorithm == "ES384"
                        ? Array(try ec.signature(for: SHA384.hash(data: message)).rawRepresentation)
                        : Array(try ec.signature(for: SHA512.hash(data: message)).rawRepresentation)
                    let pad = [UInt8](repeating: 0, count: width - 32)
                    return pad + signature[..<32] + pad + signature[32...]
                }
                #expect(try await session(server, bearer: widened).json["info"]?["authenticated"] == "jwt", "\(algorithm)")
            }
            let unknownKid = try Self.token("ES256", Self.claims(), kid: "other") {
                Array(try ec.signature(for: SHA256.hash(data: $0)).rawRepresentation)
            }
            let refused = try await session(server, bearer: unknownKid)
            #expect(refused.status == 400 && refused.json["reason"] == "Unknown kid")
        }
    }

    @Test func requiredClaimsAreCheckedWithCouchDBsStatusesAndReasons() async throws {
        try await withLiveServer { server in
            let secret = Array("another-secret".utf8)
            try await enable(server, [("jwt_keys/hmac:_default", Data(secret).base64EncodedString())])
            let key = SymmetricKey(data: secret)
            func signed(_ claims: JSONValue) -> String {
                Self.token("HS256", claims) { Array(HMAC<SHA256>.authenticationCode(for: $0, using: key)) }
            }
            let expired = try await session(server, bearer: signed(Self.claims(expiresIn: -10)))
            #expect(expired.status == 401 && expired.json["reason"] == "exp not in future")
            let noExpiry = try await session(server, bearer: signed(["sub": "x"]))
            #expect(noExpiry.status == 400 && noExpiry.json["reason"] == "Missing exp claim")
            let noSubject = try await session(server, bearer: signed(["exp": .number(JSONNumber(Int(Date().timeIntervalSince1970) + 60))]))
            #expect(noSubject.status == 401 && noSubject.json["reason"] == "Token missing sub claim.")
            #expect(try await session(server, bearer: "not.a-token").json["reason"] == "Malformed token")

            // `{iss, "hello"}` replaces the default `exp`.
            _ = try await server.admin.put("\(config)/jwt_auth/required_claims", #"{iss, "hello"}"#)
            #expect(try await session(server, bearer: signed(["sub": "x", "iss": "hello"])).json["userCtx"]?["name"] == "x")
            let wrongIssuer = try await session(server, bearer: signed(["sub": "x", "iss": "bye"]))
            #expect(wrongIssuer.status == 400 && wrongIssuer.json["reason"] == "Invalid iss claim")
            // Roles from a nested claim, a dot in a key escaped.
            _ = try await server.admin.put("\(config)/jwt_auth/roles_claim_path", #"app.couch\.roles"#)
            let nested = signed(["sub": "x", "iss": "hello", "app": ["couch.roles": "a, b"]])
            #expect(try await session(server, bearer: nested).json["userCtx"]?["roles"] == ["a", "b"])
        }
    }

    @Test func bearerTokensAndProxyHeadersAreIgnoredUnlessTheirHandlersAreNamed() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.put("\(config)/jwt_keys/hmac:_default", .string(Data("k".utf8).base64EncodedString()))
            let token = Self.token("HS256", Self.claims()) {
                Array(HMAC<SHA256>.authenticationCode(for: $0, using: SymmetricKey(data: Array("k".utf8))))
            }
            #expect(try await session(server, bearer: token).json["userCtx"]?["name"] == .null)
            let proxied = try await server.anonymous.get("/_session", headers: ["X-Auth-CouchDB-UserName": "mallory", "X-Auth-CouchDB-Roles": "_admin"])
            #expect(proxied.json["userCtx"]?["name"] == .null)
        }
    }

    @Test func aProxyNamesTheUserWithATokenWhenASecretIsSet() async throws {
        try await withLiveServer { server in
            try await enable(server, [])
            let headers = ["X-Auth-CouchDB-UserName": "couch@apache.org", "X-Auth-CouchDB-Roles": "test_role, other"]
            let open = try await server.anonymous.get("/_session", headers: headers).json
            #expect(open["userCtx"] == ["name": "couch@apache.org", "roles": ["test_role", "other"]])
            #expect(open["info"]?["authenticated"] == "proxy")

            _ = try await server.admin.put("\(config)/chttpd_auth/proxy_use_secret", "true")
            _ = try await server.admin.put("\(config)/chttpd_auth/secret", "s3cr3t")
            #expect(try await server.anonymous.get("/_session", headers: headers).json["userCtx"]?["name"] == .null)
            let key = SymmetricKey(data: Array("s3cr3t".utf8))
            for token in [
                Data(HMAC<Insecure.SHA1>.authenticationCode(for: Array("couch@apache.org".utf8), using: key)),
                Data(HMAC<SHA256>.authenticationCode(for: Array("couch@apache.org".utf8), using: key)),
            ] {
                var signed = headers
                signed["X-Auth-CouchDB-Token"] = token.map { String(format: "%02x", $0) }.joined()
                #expect(try await server.anonymous.get("/_session", headers: signed).json["userCtx"]?["name"] == "couch@apache.org")
            }
        }
    }
}
