internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// A user reading, changing or deleting their own `_users` document, as CouchDB's `_users` rules allow: the
    /// password may change, the roles may not, and neither may the hash's parameters (see
    /// ``UsersDatabase/pinningHash(of:current:)``).
    func ownUserDocument(_ request: CouchRequest, id: String) async throws -> Response {
        let store = try await registry.store(usersDatabase)
        switch request.method {
        case .get, .head:
            let document = try await store.document(id: id, options: ReadOptions(rev: request.query["rev"]))
            let etag = "\"\(document["_rev"]?.stringValue ?? "")\""
            let response = CouchResponse.json(.object(document), headers: [("ETag", etag)])
            return request.method == .head ? CouchResponse.head(of: response) : response
        case .put:
            var document = try request.jsonObjectBody()
            document["_id"] = .string(id)
            if let rev = request.query["rev"] { document["_rev"] = .string(rev) }
            let current = try await store.document(id: id)
            // `_design/_auth`'s words for changing the roles of a document that exists ("set" is for a new one).
            guard (document["roles"] ?? []) == (current["roles"] ?? []) else {
                throw HTTPFailure.forbidden("Only _admin may edit roles")
            }
            try UsersDatabase.pinningHash(of: document, current: current)
            let prepared = try await UsersDatabase.prepare(
                document, settings: nodeConfiguration.passwordSettings, validatesNatively: validatesUsersNatively,
                hashing: hashing, client: request.clientAddress)
            let result = try await store.put(prepared)
            return CouchResponse.json(result.json, status: 201, headers: [("ETag", "\"\(result.rev)\"")])
        case .delete:
            // `_design/_auth` lets a user delete their own document (`userCtx.name == oldDoc.name`).
            guard let rev = try Self.revision(body: nil, request: request) else {
                throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: id))
            }
            let result = try await store.delete(id: id, rev: rev)
            return CouchResponse.json(result.json, headers: [("ETag", "\"\(result.rev)\"")])
        default:
            throw unsupported("DELETE,GET,HEAD,PUT")
        }
    }

    /// Anyone else reaching a user document: first the database's security object (CouchDB 3 makes `_users`
    /// admins-only), then `couch_users_db`'s rules for those it admits without administering it: another
    /// user's document shows only its `chttpd_auth/public_fields` and is not found without any; changing or
    /// deleting it as a named user finds nothing either; an anonymous client may sign up (create a document,
    /// with `_design/_auth`'s rules) but not change or delete one; design documents are for admins.
    /// Returns nil for a database admin, whose request takes the ordinary path.
    func otherUserDocument(_ request: CouchRequest, id: String) async throws -> Response? {
        guard let store = try await usersDatabaseForNonAdmin(request.user) else { return nil }
        if request.method == .get || request.method == .head {
            try Self.refuseDesignDocument(id)
            return try await publicFields(of: id, in: store, request: request)
        }
        let exists = (try? await store.document(id: id)) != nil
        switch request.method {
        case .put where !request.user.isAuthenticated:
            if exists { throw HTTPFailure.forbidden("You may only update your own user document.") }
            var document = try request.jsonObjectBody()
            document["_id"] = .string(id)
            return try await signUp(document, request: request, store: store)
        case .delete where !request.user.isAuthenticated && exists:
            throw HTTPFailure.forbidden("You may only delete your own user document.")
        default:
            throw HTTPFailure.notFound("missing")
        }
    }

    /// The authentication database for `user` when its security object admits them without making them its
    /// admin (CouchDB's member check answers otherwise); nil for a database admin, whose request takes the
    /// ordinary path.
    func usersDatabaseForNonAdmin(_ user: UserContext) async throws -> DocumentStore? {
        let store = try await registry.store(usersDatabase)
        let security = try await securityObject(of: store)
        if security.isAdmin(user) { return nil }
        try Self.requireMember(security, user)
        return store
    }

    /// Another user's document as `couch_users_db:strip_non_public_fields/1` leaves it: `_id`, `_rev` and the
    /// configured public members; `404 missing` when none of them is there.
    private func publicFields(of id: String, in store: DocumentStore, request: CouchRequest) async throws -> Response {
        let document = try await store.document(id: id, options: ReadOptions(rev: request.query["rev"]))
        let shown = try publicFields(of: document)
        let etag = "\"\(shown["_rev"]?.stringValue ?? "")\""
        if request.method == .head { return CouchResponse.headOnly(headers: [("ETag", etag)]) }
        return CouchResponse.json(.object(shown), headers: [("ETag", etag)])
    }

    /// `document` with its `_id`, `_rev` and `chttpd_auth/public_fields` members only.
    /// - Throws: ``HTTPFailure`` `404 missing` when it has none of those fields.
    private func publicFields(of document: JSONObject) throws -> JSONObject {
        let fields = nodeConfiguration.publicUserFields
        let shown = document.members.filter { fields.contains($0.key) && !$0.key.hasPrefix("_") }
        guard !shown.isEmpty else { throw HTTPFailure.notFound("missing") }
        return JSONObject([("_id", document["_id"] ?? .null), ("_rev", document["_rev"] ?? .null)] + shown)
    }

    /// A document of the authentication database as a user who does not administer it reads it
    /// (`couch_users_db:after_doc_read`): their own whole, another user's public fields only.
    /// - Throws: ``HTTPFailure`` `403 forbidden` for a design document, `404 missing` for another user's
    ///   document without public fields.
    func userDocument(_ document: JSONObject, asReadBy user: UserContext) throws -> JSONObject {
        let id = document["_id"]?.stringValue ?? ""
        try Self.refuseDesignDocument(id)
        // Named by its id, as `couch_users_db:get_doc_name/1` reads it.
        if let name = user.name, id == UsersDatabase.idPrefix + name { return document }
        return try publicFields(of: document)
    }

    /// `couch_users_db:after_doc_read`'s answer to a non-admin reading a design document.
    private static func refuseDesignDocument(_ id: String) throws {
        if id.hasPrefix("_design/") {
            throw HTTPFailure.forbidden("Only administrators can view design docs in the users database.")
        }
    }

    /// `POST /{authentication db}` by someone who does not administer it: an anonymous sign-up, as
    /// ``otherUserDocument(_:id:)``. Returns nil for a database admin.
    func userSignUp(_ request: CouchRequest) async throws -> Response? {
        guard let store = try await usersDatabaseForNonAdmin(request.user) else { return nil }
        let document = try request.jsonObjectBody()
        guard !request.user.isAuthenticated else { throw HTTPFailure.notFound("missing") }
        if let id = document["_id"]?.stringValue, (try? await store.document(id: id)) != nil {
            throw HTTPFailure.forbidden("You may only update your own user document.")
        }
        return try await signUp(document, request: request, store: store)
    }

    /// Writes a new user document for an anonymous client: `_design/_auth`'s rules for non-admins (no roles,
    /// the document's shape), then the password hashed as for any user document.
    private func signUp(_ document: JSONObject, request: CouchRequest, store: DocumentStore) async throws -> Response {
        if let roles = document["roles"]?.arrayValue, !roles.isEmpty { throw HTTPFailure.forbidden("Only _admin may set roles") }
        let prepared = try await UsersDatabase.prepare(
            document, settings: nodeConfiguration.passwordSettings, validatesNatively: validatesUsersNatively,
            hashing: hashing, client: request.clientAddress)
        let result = try await store.put(prepared)
        let location = request.absoluteURI("/" + URLEncoding.couchDB(usersDatabase) + "/" + URLEncoding.couchDB(result.id))
        return CouchResponse.json(result.json, status: 201, headers: [("ETag", "\"\(result.rev)\""), ("Location", location)])
    }
}
