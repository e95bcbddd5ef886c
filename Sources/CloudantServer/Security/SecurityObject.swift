internal import CloudantCore

/// A database's `_security` object: who administers it and who may read and write it.
///
/// Rules, as CouchDB 3: a server admin may do anything; a database admin is listed in `admins` by name or
/// role; a member is listed in `members` (`readers` in objects written before CouchDB 1.2) by name or role, or is
/// a database admin. A `members` with no names and no roles makes the database public: every user, anonymous
/// ones included, is a member (CouchDB's `is_public_db`), unless `chttpd/require_valid_user` keeps anonymous
/// requests out. A database is created with the object `couchdb/default_security` names
/// (``NodeConfiguration/defaultSecurityObject``); one without a stored object (created before that was
/// written, or by an embedded store) reads as CouchDB 3's `admin_only` object, members and admins both
/// `["_admin"]`.
struct SecurityObject: Sendable, Hashable {
    /// One side of the object: names and roles.
    struct Principals: Sendable, Hashable {
        var names: [String] = []
        var roles: [String] = []

        var isEmpty: Bool { names.isEmpty && roles.isEmpty }

        func includes(_ user: UserContext) -> Bool {
            if let name = user.name, names.contains(name) { return true }
            return user.roles.contains(where: roles.contains)
        }
    }

    var admins = Principals()
    var members = Principals()
    /// The member of each document that holds its access list, when the database has per-document access
    /// (`"document_access": true` for `access`, or `{"field": NAME}`); see ``DocumentAccess``.
    var documentAccessField: String? = nil
    /// The object exactly as stored, so a `GET` returns what a `PUT` sent (other members included).
    var json: JSONValue

    /// CouchDB 3's default for new databases: only server admins.
    static let adminOnly = SecurityObject(
        admins: Principals(roles: ["_admin"]), members: Principals(roles: ["_admin"]),
        json: ["members": ["roles": ["_admin"]], "admins": ["roles": ["_admin"]]])

    init(admins: Principals, members: Principals, json: JSONValue) {
        self.admins = admins
        self.members = members
        self.json = json
    }

    /// Parses and validates a `_security` body.
    /// - Throws: ``HTTPFailure`` `400 bad_request` when `admins`/`members` or their `names`/`roles` have the
    ///   wrong shape.
    init(json: JSONValue) throws {
        guard case .object(let object) = json else { throw HTTPFailure.badRequest("Security object must be a JSON object") }
        self.json = json
        admins = try Self.principals(object["admins"], side: "admins")
        members = try Self.principals(object["members"] ?? object["readers"], side: object["members"] == nil ? "readers" : "members")
        documentAccessField = try Self.documentAccessField(object["document_access"])
    }

    private static func documentAccessField(_ value: JSONValue?) throws -> String? {
        switch value {
        case nil, .null, .bool(false)?: return nil
        case .bool(true)?: return "access"
        case .object(let object)?:
            guard let field = object["field"]?.stringValue, !field.isEmpty, !field.hasPrefix("_"), !field.contains(".")
            else {
                throw HTTPFailure.badRequest("document_access.field must name a top-level member not starting with _")
            }
            return field
        default:
            throw HTTPFailure.badRequest("document_access must be true, false or {\"field\": NAME}")
        }
    }

    /// `couch_db:validate_names_and_roles/1`: a side left out is empty, but one given must be an object whose
    /// `names` and `roles`, where given, are lists of strings; `null` is none of these, so a templating slip
    /// (`"members": null`) cannot open a database to everyone.
    private static func principals(_ value: JSONValue?, side: String) throws -> Principals {
        guard let value else { return Principals() }
        guard case .object(let object) = value else { throw HTTPFailure.badRequest("\(side) must be a JSON object") }
        func strings(_ key: String) throws -> [String] {
            guard let list = object[key] else { return [] }
            guard let array = list.arrayValue, let strings = Optional(array.compactMap(\.stringValue)),
                strings.count == array.count
            else {
                throw HTTPFailure.badRequest("\(side).\(key) must be a JSON list of strings")
            }
            return strings
        }
        return Principals(names: try strings("names"), roles: try strings("roles"))
    }

    /// Whether `user` administers the database.
    func isAdmin(_ user: UserContext) -> Bool {
        user.isServerAdmin || admins.includes(user)
    }

    /// Whether `user` may read and write documents (`couch_db:is_member/1`).
    func isMember(_ user: UserContext) -> Bool {
        isAdmin(user) || members.isEmpty || members.includes(user)
    }
}
