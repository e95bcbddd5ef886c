public import CloudantCore
internal import GRDB

extension StoreSchema.StoreInfo {
    /// The `store_info` key of the database's `_security` object (JSON text). Kept with its only user so
    /// the HTTP feature adds no edit to the shared schema file; a new key needs no migration.
    static let securityObject = "security_object"
}

extension DocumentStore {
    /// The database's `_security` object as last stored with ``setSecurityObject(_:)``, or `nil` when none
    /// was ever stored (the HTTP server then applies CouchDB's default).
    ///
    /// The store itself enforces nothing: the object is kept for the HTTP edge, which authorises requests.
    /// - Throws: `CloudantError` `.storeUnreadable` when the store cannot be read.
    public func securityObject() async throws -> JSONValue? {
        let text = try await read(.storeUnreadable) { db in
            try StoreInfo.string(StoreSchema.StoreInfo.securityObject, in: db)
        }
        return try text.map { try JSONValue(parsing: $0) }
    }

    /// Stores the database's `_security` object (CouchDB `PUT /db/_security`).
    /// - Throws: `CloudantError` `.storeUnwritable` when the store cannot be written.
    public func setSecurityObject(_ object: JSONValue) async throws {
        let text = object.jsonString()
        try await write(.storeUnwritable) { db in
            try StoreInfo.set(StoreSchema.StoreInfo.securityObject, to: text, in: db)
        }
    }
}
