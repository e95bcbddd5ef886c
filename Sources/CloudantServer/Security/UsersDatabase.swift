internal import CloudantCore

/// The `_users` database: CouchDB's user documents, whose `password` is replaced by a PBKDF2 hash on
/// every write so no cleartext password is ever stored.
enum UsersDatabase {
    /// The database name.
    static let name = "_users"
    /// The id prefix of user documents.
    static let idPrefix = "org.couchdb.user:"

    /// Validates a user document as CouchDB's `_users` design document does, and replaces a `password`
    /// member with `password_scheme`, `pbkdf2_prf`, `salt`, `iterations` and `derived_key`.
    /// Design documents and deletions pass unchanged.
    /// - Throws: ``HTTPFailure`` `403 forbidden` for a document CouchDB would refuse.
    static func prepare(_ document: JSONObject, iterations: Int) throws -> JSONObject {
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
        guard let passwordValue = document["password"] else { return document }
        guard let password = passwordValue.stringValue else {
            throw HTTPFailure.forbidden("doc.password must be a string")
        }
        let hash = try PasswordHasher.hash(password, iterations: iterations)
        var prepared = document
        _ = prepared.removeValue(forKey: "password")
        prepared["password_scheme"] = "pbkdf2"
        prepared["pbkdf2_prf"] = .string(hash.prf)
        prepared["salt"] = .string(hash.salt)
        prepared["iterations"] = .number(JSONNumber(hash.iterations))
        prepared["derived_key"] = .string(hash.derivedKey)
        return prepared
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
