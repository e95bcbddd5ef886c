public import CloudantCore

/// Who is writing, as design documents' `validate_doc_update` functions see it: CouchDB's `userCtx` (name
/// and roles) and the database's security object (`secObj`).
///
/// The store reads it from the task that writes (``DocumentStore/writer``). Code that embeds the store writes
/// as its owner unless it says otherwise: no name and the `_admin` role. A server sets the identity of each
/// request's user:
///
/// ```swift
/// let identity = WriterIdentity(name: "ada", roles: ["nurse"], securityObject: security)
/// try await DocumentStore.$writer.withValue(identity) {
///     try await store.put(["_id": "note-1", "text": "…"])   // validated as ada
/// }
/// ```
public struct WriterIdentity: Sendable, Hashable {
    /// The user's name (`userCtx.name`); nil for an anonymous writer or the embedding code.
    public var name: String?
    /// The user's roles (`userCtx.roles`).
    public var roles: [String]
    /// The database's security object (`secObj`); nil reads the one the store keeps.
    public var securityObject: JSONObject?
    /// The security object to pass when the store keeps none (a server's default for new databases); `{}`
    /// when nil.
    public var defaultSecurityObject: JSONObject?

    /// Creates an identity.
    public init(name: String?, roles: [String], securityObject: JSONObject? = nil, defaultSecurityObject: JSONObject? = nil) {
        self.name = name
        self.roles = roles
        self.securityObject = securityObject
        self.defaultSecurityObject = defaultSecurityObject
    }

    /// The embedding code: no name, the `_admin` role.
    public static let owner = WriterIdentity(name: nil, roles: ["_admin"])
}

extension DocumentStore {
    /// The identity writes of the current task are validated as (``WriterIdentity/owner`` when unset).
    @TaskLocal public static var writer: WriterIdentity?
}

extension DocumentStore {
    /// The validation writes of the current task go through, or nil when the store runs no design functions.
    func writeValidation() -> WriteValidation? {
        guard let runtime = options.designFunctions, runtime.languages.contains("javascript") else { return nil }
        let identity = Self.writer ?? .owner
        let user: JSONValue = [
            "db": .string(name), "name": identity.name.map(JSONValue.string) ?? .null,
            "roles": .array(identity.roles.map(JSONValue.string)),
        ]
        return WriteValidation(
            runtime: runtime, userContext: user, securityObject: identity.securityObject,
            defaultSecurityObject: identity.defaultSecurityObject, cache: validationFunctions)
    }
}
