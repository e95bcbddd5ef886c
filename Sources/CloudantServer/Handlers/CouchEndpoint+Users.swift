internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// A user reading or changing their own `_users` document, as CouchDB's `_users` rules allow: the
    /// password may change, the roles may not, and neither may the hash's parameters (see
    /// ``UsersDatabase/pinningHash(of:current:)``).
    func ownUserDocument(_ request: CouchRequest, id: String) async throws -> Response {
        let store = try await registry.store(usersDatabase)
        switch request.method {
        case .get, .head:
            let document = try await store.document(id: id, options: ReadOptions(rev: request.query["rev"]))
            let etag = "\"\(document["_rev"]?.stringValue ?? "")\""
            if request.method == .head { return CouchResponse.headOnly(headers: [("ETag", etag)]) }
            return CouchResponse.json(.object(document), headers: [("ETag", etag)])
        case .put:
            var document = try request.jsonObjectBody()
            document["_id"] = .string(id)
            if let rev = request.query["rev"] { document["_rev"] = .string(rev) }
            let current = try await store.document(id: id)
            guard (document["roles"] ?? []) == (current["roles"] ?? []) else {
                throw HTTPFailure.forbidden("Only _admin may set roles")
            }
            try UsersDatabase.pinningHash(of: document, current: current)
            let prepared = try await UsersDatabase.prepare(
                document, settings: nodeConfiguration.passwordSettings, validatesNatively: validatesUsersNatively,
                hashing: hashing, client: request.clientAddress)
            let result = try await store.put(prepared)
            return CouchResponse.json(result.json, status: 201, headers: [("ETag", "\"\(result.rev)\"")])
        default:
            throw unsupported("GET,HEAD,PUT")
        }
    }
}
