internal import CloudantCore

/// The `_users` database: CouchDB's user documents, whose `password` is replaced by a PBKDF2 hash on
/// every write so no cleartext password is ever stored.
enum UsersDatabase {
    /// The database name.
    static let name = "_users"
    /// The id prefix of user documents.
    static let idPrefix = "org.couchdb.user:"

    /// The members that hold a password's hash: CouchDB's `remove_password_fields` drops them all before it
    /// writes a new hash.
    static let hashFields = [
        "derived_key", "iterations", "password", "password_scheme", "password_sha", "preserve_salt", "pbkdf2_prf", "salt",
    ]

    /// Validates a user document as CouchDB's `_users` design document does, and replaces a `password`
    /// member with `password_scheme`, `pbkdf2_prf`, `salt`, `iterations` and `derived_key` (the server's
    /// iterations and PRF; the document's own `salt` when it says `"preserve_salt": true`, as CouchDB's
    /// `save_doc`). Design documents and deletions pass unchanged. The derivation runs on `hashing`.
    /// - Throws: ``HTTPFailure`` `403 forbidden` for a document CouchDB would refuse; `429`/`503` when the
    ///   hashing queue is full (``PasswordHashingPool/Refusal``).
    static func prepare(
        _ document: JSONObject, iterations: Int, hashing: PasswordHashingPool, client: String?
    ) async throws -> JSONObject {
        let id = document["_id"]?.stringValue ?? ""
        if id.hasPrefix("_design/") || document["_deleted"] == true { return document }
        guard document["type"]?.stringValue == "user" else { throw HTTPFailure.forbidden("doc.type must be user") }
        guard let name = document["name"]?.stringValue, !name.isEmpty else {
            throw HTTPFailure.forbidden("doc.name is required")
        }
        guard id == idPrefix + name else {
            throw HTTPFailure.forbidden("Doc ID must be of the form org.couchdb.user:name")
        }
        guard let roles = document["roles"]?.arrayValue, roles.allSatisfy({ $0.stringValue != nil }) else {
            throw HTTPFailure.forbidden("doc.roles must be an array")
        }
        guard let passwordValue = document["password"], passwordValue != .null else { return document }
        guard let password = passwordValue.stringValue else {
            throw HTTPFailure.forbidden("doc.password must be a string")
        }
        let keptSalt = document["preserve_salt"] == true ? document["salt"]?.stringValue : nil
        let hash: PasswordHash
        do {
            hash = try await hashing.run(client: client) {
                Result { try PasswordHasher.hash(password, iterations: iterations, salt: keptSalt) }
            }.get()
        } catch let refusal as PasswordHashingPool.Refusal {
            throw HTTPFailure.hashingBusy(refusal)
        }
        var prepared = document
        for field in hashFields { prepared.removeValue(forKey: field) }
        prepared["password_scheme"] = "pbkdf2"
        prepared["pbkdf2_prf"] = .string(hash.prf)
        prepared["salt"] = .string(hash.salt)
        prepared["iterations"] = .number(JSONNumber(hash.iterations))
        prepared["derived_key"] = .string(hash.derivedKey)
        return prepared
    }

    /// Refuses a user's write to their own document that changes how their password is hashed without giving
    /// a new password: only the server chooses a hash's parameters (a user who set `"iterations": 60000000`
    /// would make every login with their name cost minutes).
    /// - Throws: ``HTTPFailure`` `403 forbidden` when a hash member differs from `current`'s and `document`
    ///   has no `password`.
    static func pinningHash(of document: JSONObject, current: JSONObject) throws {
        if let password = document["password"], password != .null { return }
        for field in hashFields where field != "password" && document[field] != current[field] {
            throw HTTPFailure.forbidden(
                "Only _admin may set \(field); send a new password in `password` and the server hashes it.")
        }
    }

    /// The stored hash and roles of a user document, or `nil` when it holds no usable PBKDF2 hash.
    static func credentials(in document: JSONObject) -> (hash: PasswordHash, roles: [String])? {
        guard document["password_scheme"]?.stringValue == "pbkdf2",
            let salt = document["salt"]?.stringValue, let key = document["derived_key"]?.stringValue,
            let iterations = document["iterations"]?.numberValue?.int64Value
        else { return nil }
        let prf = document["pbkdf2_prf"]?.stringValue ?? "sha"
        let roles = (document["roles"]?.arrayValue ?? []).compactMap(\.stringValue)
        return (PasswordHash(salt: salt, derivedKey: key, iterations: Int(iterations), prf: prf), roles)
    }
}
