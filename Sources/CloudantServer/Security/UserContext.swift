internal import CloudantCore

/// Who a request acts for, as CouchDB's `userCtx`: a name (none for anonymous) and roles (`_admin` for a
/// server admin).
struct UserContext: Sendable, Hashable {
    /// The user name; `nil` for anonymous and in admin-party mode.
    var name: String?
    /// The user's roles.
    var roles: [String]

    /// Nobody logged in.
    static let anonymous = UserContext(name: nil, roles: [])

    /// Whether this is a server admin.
    var isServerAdmin: Bool { roles.contains("_admin") }

    /// Whether the request carried valid credentials (or runs in admin party).
    var isAuthenticated: Bool { name != nil || isServerAdmin }

    /// CouchDB's `userCtx` object.
    var json: JSONValue {
        ["name": name.map(JSONValue.string) ?? .null, "roles": .array(roles.map(JSONValue.string))]
    }
}
