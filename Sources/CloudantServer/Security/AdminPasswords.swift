/// Server admins as CouchDB keeps them in its configuration's `admins` section: one key per name, whose value
/// is the password's hash in one string, `-pbkdf2:PRF-DERIVEDKEY,SALT,ITERATIONS`
/// (`couch_passwords:hash_admin_password`), or the older `-pbkdf2-DERIVEDKEY,SALT,ITERATIONS` (HMAC-SHA1).
///
/// A value set in clear text is hashed before it is kept, as CouchDB's `couch_password_hasher` does, so an
/// admin password is never stored or shown in clear. A CouchDB 1.x `-hashed-` (salted SHA-1) value is kept
/// as it is but cannot log in here: set a new password for that admin.
enum AdminPasswords {
    /// Whether `value` is already a hash CouchDB would not hash again (`couch_passwords:get_unhashed_admins`).
    static func isHashed(_ value: String) -> Bool {
        value.hasPrefix("-hashed-") || value.hasPrefix("-pbkdf2-") || value.hasPrefix("-pbkdf2:")
    }

    /// The configuration value of `hash`.
    static func value(of hash: PasswordHash) -> String {
        "-pbkdf2:\(hash.prf)-\(hash.derivedKey),\(hash.salt),\(hash.iterations)"
    }

    /// The hash in a configuration value, or `nil` when it holds none this server checks.
    static func hash(in value: String) -> PasswordHash? {
        let prf: Substring
        let rest: Substring
        if value.hasPrefix("-pbkdf2-") {
            (prf, rest) = ("sha", value.dropFirst("-pbkdf2-".count))
        } else if value.hasPrefix("-pbkdf2:") {
            let tail = value.dropFirst("-pbkdf2:".count)
            guard let dash = tail.firstIndex(of: "-") else { return nil }
            (prf, rest) = (tail[..<dash], tail[tail.index(after: dash)...])
        } else {
            return nil
        }
        // `string:tokens/2`, as CouchDB splits it: empty fields are dropped.
        let fields = rest.split(separator: ",")
        guard fields.count == 3, let iterations = Int(fields[2]), iterations > 0 else { return nil }
        return PasswordHash(salt: String(fields[1]), derivedKey: String(fields[0]), iterations: iterations, prf: String(prf))
    }
}
