internal import Crypto
internal import CryptoExtras

/// A password as CouchDB keeps it in a `_users` document: PBKDF2 with a random salt (CouchDB 3), or one of
/// the schemes documents written by CouchDB 1.x still carry (`couch_httpd_auth:authenticate_int/3`).
struct PasswordHash: Sendable, Hashable {
    /// How the password was hashed: a user document's `password_scheme`.
    enum Scheme: String, Sendable, Hashable {
        /// PBKDF2 of the password.
        case pbkdf2
        /// The hex SHA-1 of the password followed by the salt (`password_sha`; CouchDB 1.2 and earlier).
        case simple
        /// PBKDF2 of that SHA-1 hex (a `simple` hash wrapped in PBKDF2 without the password).
        case simplePBKDF2 = "simple+pbkdf2"
    }

    /// The salt, as hex text (its UTF-8 bytes salt the derivation, as in CouchDB).
    var salt: String
    /// The derived key, lower-case hex (`password_sha` for ``Scheme/simple``).
    var derivedKey: String
    /// PBKDF2 iterations.
    var iterations: Int
    /// The PRF: `sha256` (CouchDB 3.4+) or `sha` (older documents, HMAC-SHA1).
    var prf: String
    var scheme: Scheme = .pbkdf2
}

/// Derives and checks PBKDF2 password hashes (CouchDB's `password_scheme: "pbkdf2"`).
enum PasswordHasher {
    /// The PRFs CouchDB's `couch_httpd_auth` accepts in a user document's `pbkdf2_prf`, with their key lengths.
    static let keyLengths: [String: Int] = ["sha": 20, "sha224": 28, "sha256": 32, "sha384": 48, "sha512": 64]

    /// Hashes `password` with a fresh random salt (or `salt`, when a user document asks to keep its own) and
    /// `prf` (one of ``keyLengths``' names; CouchDB's default `sha256`).
    static func hash(_ password: String, iterations: Int, prf: String = "sha256", salt: String? = nil) throws -> PasswordHash {
        let salt = salt ?? Hex.encode(SecureRandom.bytes(16))
        let prf = keyLengths[prf] == nil ? "sha256" : prf
        return PasswordHash(
            salt: salt, derivedKey: try derive(password, salt: salt, iterations: iterations, prf: prf),
            iterations: iterations, prf: prf)
    }

    /// The hex derived key of `password`.
    static func derive(_ password: String, salt: String, iterations: Int, prf: String) throws -> String {
        let function: KDF.Insecure.PBKDF2.HashFunction =
            switch prf {
            case "sha224": .insecureSHA224
            case "sha256": .sha256
            case "sha384": .sha384
            case "sha512": .sha512
            default: .insecureSHA1
            }
        // Iterations come from stored documents and configuration, so the library's 210 000 floor (meant
        // for new keys) must not reject CouchDB documents hashed with fewer.
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Array(password.utf8), salt: Array(salt.utf8), using: function,
            outputByteCount: keyLengths[prf] ?? 20, unsafeUncheckedRounds: max(1, iterations))
        return Hex.encode(key.withUnsafeBytes { Array($0) })
    }

    /// Whether `password` matches `hash`, comparing in constant time.
    static func verify(_ password: String, against hash: PasswordHash) -> Bool {
        let derived: String
        switch hash.scheme {
        case .simple:
            derived = simple(password, salt: hash.salt)
        case .simplePBKDF2:
            guard let key = try? derive(simple(password, salt: hash.salt), salt: hash.salt, iterations: hash.iterations, prf: hash.prf)
            else { return false }
            derived = key
        case .pbkdf2:
            guard let key = try? derive(password, salt: hash.salt, iterations: hash.iterations, prf: hash.prf) else { return false }
            derived = key
        }
        return ConstantTime.equal(Array(derived.utf8), Array(hash.derivedKey.lowercased().utf8))
    }

    /// `couch_passwords:simple/2`: the lower-case hex SHA-1 of the password's bytes then the salt's.
    static func simple(_ password: String, salt: String) -> String {
        Hex.encode(Insecure.SHA1.hash(data: Array(password.utf8) + Array(salt.utf8)))
    }

    /// Why a stored hash is not checked at all, as CouchDB's `couch_httpd_auth` refuses it (`403 forbidden`,
    /// its reasons), or `nil` when it may be: a PRF CouchDB knows and iterations within `allowed`. The bound
    /// keeps the work of one login what the server chose, whatever a stored document says.
    static func refusal(of hash: PasswordHash, allowed: ClosedRange<Int>) -> String? {
        // A `simple` hash has neither: it costs one SHA-1.
        guard hash.scheme != .simple else { return nil }
        guard keyLengths[hash.prf] != nil else { return "PRF is invalid" }
        if hash.iterations < allowed.lowerBound { return "Iteration count is too low for this server" }
        if hash.iterations > allowed.upperBound { return "Iteration count is too high for this server" }
        return nil
    }
}

/// Comparisons whose time does not depend on where the inputs differ.
enum ConstantTime {
    static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}

/// Lower-case hex text.
enum Hex {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Cryptographically secure random bytes.
enum SecureRandom {
    static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
}
