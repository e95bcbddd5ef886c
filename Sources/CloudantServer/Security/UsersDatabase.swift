internal import CloudantCore

/// The authentication database (`_users` unless configured): CouchDB's user documents, whose `password` is
/// replaced by a PBKDF2 hash on every write so no cleartext password is ever stored.
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

    /// How new password hashes are made and which passwords are accepted: the node configuration's
    /// `chttpd_auth` `iterations`, `pbkdf2_prf` and `password_regexp` (``PasswordRequirements``).
    struct PasswordSettings: Sendable {
        var iterations: Int
        var prf = "sha256"
        var requirements: String? = nil
    }

    /// A user document as CouchDB's `couch_users_db:before_doc_update` leaves it: a `password` member is checked
    /// against the password requirements, then replaced with `password_scheme`, `pbkdf2_prf`, `salt`,
    /// `iterations` and `derived_key` before the other members (the document's own `salt` when it says
    /// `"preserve_salt": true`). Design documents and deletions pass unchanged. The derivation runs on `hashing`.
    ///
    /// The rules of a user document's shape are `_design/_auth`'s (``AuthDesignDocument``), which the server's
    /// JavaScript engine runs; with `validatesNatively` (a server without one) they are checked here, after the
    /// hashing, as that function would check them (``refusal(of:)``).
    /// - Throws: ``HTTPFailure`` `400 bad_request` for a password the requirements refuse, `403 forbidden` for
    ///   a document the rules refuse or requirements the server cannot read; `429`/`503` when the hashing
    ///   queue is full (``PasswordHashingPool/Refusal``).
    static func prepare(
        _ document: JSONObject, settings: PasswordSettings, validatesNatively: Bool, hashing: PasswordHashingPool,
        client: String?
    ) async throws -> JSONObject {
        let id = document["_id"]?.stringValue ?? ""
        if id.hasPrefix("_design/") || document["_deleted"] == true { return document }
        var prepared = document
        if let passwordValue = document["password"], passwordValue != .null {
            guard let password = passwordValue.stringValue else {
                throw HTTPFailure.forbidden("doc.password must be a string")
            }
            try PasswordRequirements(settings.requirements).check(password)
            let keptSalt = document["preserve_salt"] == true ? document["salt"]?.stringValue : nil
            let hash: PasswordHash
            do {
                hash = try await hashing.run(client: client) {
                    Result { try PasswordHasher.hash(password, iterations: settings.iterations, prf: settings.prf, salt: keptSalt) }
                }.get()
            } catch let refusal as PasswordHashingPool.Refusal {
                throw HTTPFailure.hashingBusy(refusal)
            }
            for field in hashFields { prepared.removeValue(forKey: field) }
            // In front of the other members, as `couch_users_db:save_doc/1` puts them.
            prepared = prepared.prepending([
                ("password_scheme", "pbkdf2"), ("pbkdf2_prf", .string(hash.prf)), ("salt", .string(hash.salt)),
                ("iterations", .number(JSONNumber(hash.iterations))), ("derived_key", .string(hash.derivedKey)),
            ])
        }
        if validatesNatively, let reason = refusal(of: prepared) { throw HTTPFailure.forbidden(reason) }
        return prepared
    }

    /// Why `_design/_auth`'s rules refuse `document` whoever writes it, or `nil`: the shape of a user document
    /// (who may write it is the routes' rule: admins, or the user themselves without changing their roles).
    static func refusal(of document: JSONObject) -> String? {
        if document["_deleted"] == true { return nil }
        guard document["type"]?.stringValue == "user" else { return "doc.type must be user" }
        guard let name = document["name"]?.stringValue, !name.isEmpty else { return "doc.name is required" }
        guard let rolesValue = document["roles"], truthy(rolesValue) else { return "doc.roles must exist" }
        guard let roles = rolesValue.arrayValue else { return "doc.roles must be an array" }
        guard roles.allSatisfy({ $0.stringValue != nil }) else { return "doc.roles can only contain strings" }
        guard document["_id"]?.stringValue == idPrefix + name else { return "Doc ID must be of the form org.couchdb.user:name" }
        if truthy(document["password_sha"]), !truthy(document["salt"]) {
            return "Users with password_sha must have a salt.See /_utils/script/couch.js for example code."
        }
        if let scheme = document["password_scheme"], truthy(scheme),
            !["simple", "pbkdf2", "simple+pbkdf2"].contains(scheme.stringValue ?? "")
        {
            return "Password scheme `\(scheme.stringValue ?? scheme.jsonString())` not supported."
        }
        if document["password_scheme"]?.stringValue == "pbkdf2" {
            guard document["iterations"]?.numberValue != nil else { return "iterations must be a number." }
            guard document["derived_key"]?.stringValue != nil else { return "derived_key must be a string." }
        }
        if roles.contains(where: { $0.stringValue != "_metrics" && $0.stringValue?.hasPrefix("_") == true }) {
            return "No system roles (starting with underscore) in users db."
        }
        if name.hasPrefix("_") { return "Username may not start with underscore." }
        if name.contains(":") { return "Character `:` is not allowed in usernames." }
        return nil
    }

    /// Whether JavaScript counts `value` as true (the rules are stated in JavaScript).
    private static func truthy(_ value: JSONValue?) -> Bool {
        switch value {
        case nil, .null, .bool(false): false
        case .string(let text): !text.isEmpty
        case .number(let number): number != JSONNumber(0)
        default: true
        }
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

    /// The stored hash and roles of a user document, or `nil` when it holds no usable hash. As
    /// `couch_httpd_auth:authenticate_int/3` reads one: `password_scheme` is `simple` when absent, the salt
    /// empty, a PBKDF2 hash's `pbkdf2_prf` `sha` and its `iterations` 10,000.
    static func credentials(in document: JSONObject) -> (hash: PasswordHash, roles: [String])? {
        guard let scheme = PasswordHash.Scheme(rawValue: document["password_scheme"]?.stringValue ?? "simple") else { return nil }
        let salt = document["salt"]?.stringValue ?? ""
        let key = document[scheme == .simple ? "password_sha" : "derived_key"]?.stringValue
        let iterations = document["iterations"].map { $0.numberValue?.int64Value } ?? 10_000
        guard let key, let iterations else { return nil }
        let prf = document["pbkdf2_prf"]?.stringValue ?? "sha"
        let roles = (document["roles"]?.arrayValue ?? []).compactMap(\.stringValue)
        return (PasswordHash(salt: salt, derivedKey: key, iterations: Int(iterations), prf: prf, scheme: scheme), roles)
    }
}
