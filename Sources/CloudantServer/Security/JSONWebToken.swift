internal import CloudantCore
internal import Crypto
internal import CryptoExtras
internal import Foundation

/// A JSON Web Token checked as CouchDB's `jwt_authentication_handler` checks one (`jwtf` and
/// `jwtf_keystore`): `Authorization: Bearer HEADER.PAYLOAD.SIGNATURE`, signed with `HS256/384/512` (a secret),
/// `RS256/384/512` (an RSA public key, PKCS #1 v1.5) or `ES256/384/512` (an EC public key, the signature as
/// JOSE's `r‖s`), the key found in the node configuration's `jwt_keys` section as `hmac:KID`, `rsa:KID` or
/// `ec:KID` (the token's `kid`, `_default` without one). The user is the `sub` claim, their roles the
/// `_couchdb.roles` claim (`jwt_auth/roles_claim_name`, or a dotted `jwt_auth/roles_claim_path`).
///
/// `jwt_auth/required_claims` (default `exp`) lists the claims a token must have and that are checked:
/// `exp` in the future, `nbf` in the past, `iat` an integer, `{iss, "VALUE"}` equal, `kid` and `typ` present.
/// Failures answer CouchDB's statuses and reasons: `400` for a malformed or badly signed token, `401` for an
/// expired one.
struct JSONWebToken {
    /// The node configuration it is checked against.
    struct Settings: Sendable {
        /// `jwt_auth/required_claims`.
        var requiredClaims = "exp"
        /// The `jwt_keys` section.
        var keys: [String: String] = [:]
        /// `jwt_auth/roles_claim_name`.
        var rolesClaimName: String?
        /// `jwt_auth/roles_claim_path`, which wins over the name.
        var rolesClaimPath: String?
    }

    /// The claim checks `jwt_auth/required_claims` asks for (`jwtf`'s checks): a claim name, or an `iss` value.
    private struct Checks {
        var names: Set<String> = ["alg"]
        var issuer: String?
    }

    private static let checkNames: Set<String> = ["alg", "exp", "iat", "iss", "kid", "nbf", "sig", "typ"]
    private static let hashes: [String: String] = ["256": "sha256", "384": "sha384", "512": "sha512"]

    /// The user a bearer token names, once it is checked.
    /// - Parameter now: seconds since 1970.
    /// - Throws: ``HTTPFailure`` with CouchDB's status and reason.
    static func user(fromToken token: String, settings: Settings, now: Double) throws -> UserContext {
        let checks = try parseChecks(settings.requiredClaims)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw HTTPFailure.badRequest("Malformed token") }
        let header = try object(fromPart: parts[0])
        try checkHeader(header, checks)
        let claims = try object(fromPart: parts[1])
        try checkClaims(claims, checks, now: now)
        guard let algorithm = header["alg"]?.stringValue else { throw HTTPFailure.badRequest("Missing alg header parameter") }
        if checks.names.contains("kid"), header["kid"] == nil { throw HTTPFailure.badRequest("Missing kid claim") }
        let kid = header["kid"]?.stringValue ?? "_default"
        guard let signature = Base64URL.decode(parts[2]) else { throw HTTPFailure.badRequest("Malformed token") }
        try verify(
            algorithm: algorithm, message: Array("\(parts[0]).\(parts[1])".utf8), signature: signature, kid: kid,
            keys: settings.keys)
        let roles = try Self.roles(in: claims, settings: settings)
        guard let name = claims["sub"]?.stringValue else { throw HTTPFailure.unauthorized("Token missing sub claim.") }
        return UserContext(name: name, roles: roles)
    }

    /// `couch_httpd_auth:get_configured_claims/0`: `exp, iat` or `{iss, "value"}` items; text none of them
    /// matches is a misconfigured server.
    private static func parseChecks(_ text: String) throws -> Checks {
        var checks = Checks()
        guard !text.isEmpty else { return checks }
        let pattern = try NSRegularExpression(pattern: #"([a-z]+)|\{([a-z]+)\s*,\s*"([^"]+)"\}"#)
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        guard !matches.isEmpty else {
            throw HTTPFailure(status: 500, error: "misconfigured_server", reason: "JWT is not configured correctly")
        }
        func group(_ match: NSTextCheckingResult, _ index: Int) -> String? {
            Range(match.range(at: index), in: text).map { String(text[$0]) }
        }
        for match in matches {
            let name = group(match, 1) ?? group(match, 2) ?? ""
            guard checkNames.contains(name) else {
                throw HTTPFailure(status: 500, error: "misconfigured_server", reason: "JWT is not configured correctly")
            }
            checks.names.insert(name)
            if name == "iss", let value = group(match, 3) { checks.issuer = value }
        }
        return checks
    }

    private static func object(fromPart part: Substring) throws -> JSONObject {
        guard let bytes = Base64URL.decode(part), case .object(let object)? = try? JSONValue(parsing: bytes) else {
            throw HTTPFailure.badRequest("Malformed token")
        }
        return object
    }

    private static func checkHeader(_ header: JSONObject, _ checks: Checks) throws {
        switch header["typ"] {
        case nil where checks.names.contains("typ"): throw HTTPFailure.badRequest("Missing typ header parameter")
        case nil, .string("JWT")?: break
        default: throw HTTPFailure.badRequest("Invalid typ header parameter")
        }
        guard let algorithm = header["alg"] else { throw HTTPFailure.badRequest("Missing alg header parameter") }
        guard let name = algorithm.stringValue, isKnown(name) else { throw HTTPFailure.badRequest("Invalid alg header parameter") }
    }

    private static func isKnown(_ algorithm: String) -> Bool {
        ["HS", "RS", "ES"].contains(String(algorithm.prefix(2))) && hashes[String(algorithm.dropFirst(2))] != nil
            && algorithm.count == 5
    }

    /// `jwtf:validate_payload/2`: only the claims `required_claims` names are checked.
    private static func checkClaims(_ claims: JSONObject, _ checks: Checks, now: Double) throws {
        if checks.names.contains("iss") {
            guard let issuer = claims["iss"] else { throw HTTPFailure.badRequest("Missing iss claim") }
            if let expected = checks.issuer, issuer != .string(expected) { throw HTTPFailure.badRequest("Invalid iss claim") }
        }
        if checks.names.contains("iat") {
            guard let issuedAt = claims["iat"] else { throw HTTPFailure.badRequest("Missing iat claim") }
            guard issuedAt.numberValue?.int64Value != nil else { throw HTTPFailure.badRequest("Invalid iat claim") }
        }
        if checks.names.contains("nbf") {
            guard let notBefore = claims["nbf"] else { throw HTTPFailure.badRequest("Missing nbf claim") }
            guard let time = notBefore.numberValue?.doubleValue, time < now else { throw HTTPFailure.unauthorized("nbf not in past") }
        }
        if checks.names.contains("exp") {
            guard let expiry = claims["exp"] else { throw HTTPFailure.badRequest("Missing exp claim") }
            guard let time = expiry.numberValue?.doubleValue, time > now else { throw HTTPFailure.unauthorized("exp not in future") }
        }
    }

    /// `jwtf:verify/5` with the key `jwtf_keystore` finds for the algorithm's key type and `kid`.
    private static func verify(algorithm: String, message: [UInt8], signature: [UInt8], kid: String, keys: [String: String]) throws {
        let hash = hashes[String(algorithm.dropFirst(2))] ?? "sha256"
        let keyType = ["HS": "hmac", "RS": "rsa", "ES": "ec"][String(algorithm.prefix(2))] ?? ""
        guard let encoded = keys[keyType + ":" + kid] else { throw HTTPFailure.badRequest("Unknown kid") }
        switch keyType {
        case "hmac":
            guard let secret = Data(base64Encoded: encoded) else { throw HTTPFailure.badRequest("Not a valid key") }
            let key = SymmetricKey(data: secret)
            let valid: Bool =
                switch hash {
                case "sha384": HMAC<SHA384>.isValidAuthenticationCode(signature, authenticating: message, using: key)
                case "sha512": HMAC<SHA512>.isValidAuthenticationCode(signature, authenticating: message, using: key)
                default: HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: message, using: key)
                }
            guard valid else { throw HTTPFailure.badRequest("Bad HMAC") }
        case "rsa":
            guard let key = try? _RSA.Signing.PublicKey(unsafePEMRepresentation: pem(encoded)) else {
                throw HTTPFailure.badRequest("not an RSA public key")
            }
            let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
            let valid: Bool =
                switch hash {
                case "sha384": key.isValidSignature(rsaSignature, for: SHA384.hash(data: message), padding: .insecurePKCS1v1_5)
                case "sha512": key.isValidSignature(rsaSignature, for: SHA512.hash(data: message), padding: .insecurePKCS1v1_5)
                default: key.isValidSignature(rsaSignature, for: SHA256.hash(data: message), padding: .insecurePKCS1v1_5)
                }
            guard valid else { throw HTTPFailure.badRequest("Bad signature") }
        default:
            guard let key = ECPublicKey(pem: pem(encoded)) else { throw HTTPFailure.badRequest("not an EC public key") }
            guard key.isValid(signature, for: message, hash: hash) else { throw HTTPFailure.badRequest("Bad signature") }
        }
    }

    /// A PEM kept on one configuration line, its newlines written as `\n`.
    private static func pem(_ value: String) -> String {
        value.replacingOccurrences(of: "\\n", with: "\n")
    }

    /// `couch_httpd_auth:get_roles_claim/1`: a list of strings, or a string of comma-separated roles.
    private static func roles(in claims: JSONObject, settings: Settings) throws -> [String] {
        var value: JSONValue?
        if let path = settings.rolesClaimPath {
            value = .object(claims)
            for key in claimPath(path) {
                guard let next = value?[key] else { throw HTTPFailure.notFound("missing json key: \(key)") }
                value = next
            }
        } else {
            value = claims[settings.rolesClaimName ?? "_couchdb.roles"]
        }
        switch value {
        case nil: return []
        case .array(let items)?:
            let roles = items.compactMap(\.stringValue)
            guard roles.count == items.count else { throw HTTPFailure.badRequest("Malformed token") }
            return roles
        case .string(let text)?:
            return text.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        default:
            throw HTTPFailure.badRequest("Malformed token")
        }
    }

    /// A dotted path whose `\.` is a dot inside a key.
    private static func claimPath(_ path: String) -> [String] {
        var keys: [String] = []
        var current = ""
        var escaped = false
        for character in path {
            if escaped {
                if character != "." { current.append("\\") }
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                keys.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        keys.append(current)
        return keys
    }
}

/// An EC public key of any curve JWT uses, checking JOSE signatures (`r‖s`) over a message hashed with the
/// algorithm's hash, as Erlang's `public_key:verify/4` checks them whatever the curve.
private enum ECPublicKey {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)

    init?(pem: String) {
        if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
            self = .p256(key)
        } else if let key = try? P384.Signing.PublicKey(pemRepresentation: pem) {
            self = .p384(key)
        } else if let key = try? P521.Signing.PublicKey(pemRepresentation: pem) {
            self = .p521(key)
        } else {
            return nil
        }
    }

    /// The bytes of one of `r` and `s` on this curve.
    private var componentSize: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    /// `signature` as this curve's `r‖s`. CouchDB's `jwtf` reads a JOSE signature as two halves of whatever
    /// length it has and writes each as wide as the algorithm's bits (an `ES512` token signed with a P-256 key
    /// carries 64-byte halves), so each half is read as a number and written at the curve's width.
    private func raw(_ signature: [UInt8]) -> [UInt8]? {
        guard !signature.isEmpty, signature.count % 2 == 0 else { return nil }
        let half = signature.count / 2
        var raw: [UInt8] = []
        for part in [signature[..<half], signature[half...]] {
            let significant = part.drop { $0 == 0 }
            guard significant.count <= componentSize else { return nil }
            raw += [UInt8](repeating: 0, count: componentSize - significant.count) + significant
        }
        return raw
    }

    func isValid(_ signature: [UInt8], for message: [UInt8], hash: String) -> Bool {
        guard let signature = raw(signature) else { return false }
        switch self {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return Self.check(hash, message) { key.isValidSignature(signature, for: $0) }
        case .p384(let key):
            guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return Self.check(hash, message) { key.isValidSignature(signature, for: $0) }
        case .p521(let key):
            guard let signature = try? P521.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return Self.check(hash, message) { key.isValidSignature(signature, for: $0) }
        }
    }

    private static func check(_ hash: String, _ message: [UInt8], _ verify: (any Digest) -> Bool) -> Bool {
        switch hash {
        case "sha384": verify(SHA384.hash(data: message))
        case "sha512": verify(SHA512.hash(data: message))
        default: verify(SHA256.hash(data: message))
        }
    }
}

/// Unpadded base64url (RFC 4648 §5), as JWT writes its parts.
enum Base64URL {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        guard !text.contains("=") else { return nil }
        return Base64.decodeURL(text)
    }
}
