internal import CloudantCore
internal import Hummingbird

extension CouchEndpoint {
    /// `GET /_sessions[?name=N]`, `DELETE /_sessions[?name=N]` and `DELETE /_sessions/{id}`: the cookie
    /// sessions of a user, listed and revoked. A user sees and ends their own; a server admin anyone's. A
    /// revoked session's cookie is refused on its next request.
    func sessions(_ request: CouchRequest) async throws -> Response {
        let registry = authenticator.sessions
        switch (request.method, request.segments.count) {
        case (.get, 1), (.head, 1):
            let name = try sessionOwner(request)
            let listed = registry.list(name: name).filter { authenticator.isLive($0) }
            return CouchResponse.json([
                "sessions": .array(listed.map { sessionJSON($0, current: request.session?.id == $0.id) })
            ])
        case (.delete, 1):
            let name = try sessionOwner(request)
            guard let name else { throw HTTPFailure.badRequest("Name the user whose sessions to revoke: ?name=NAME") }
            let revoked = await registry.revoke { $0.name == name }
            return CouchResponse.json(["ok": true, "revoked": .number(JSONNumber(revoked))])
        case (.delete, 2):
            let id = request.segments[1]
            guard let session = registry.session(id: id),
                request.user.isServerAdmin || session.name == request.user.name
            else { throw HTTPFailure.notFound("missing") }
            let revoked = await registry.revoke { $0.id == id }
            return CouchResponse.json(["ok": true, "revoked": .number(JSONNumber(revoked))])
        case (_, 1):
            throw unsupported("GET,HEAD,DELETE")
        case (_, 2):
            throw unsupported("DELETE")
        default:
            throw HTTPFailure.notFound()
        }
    }

    /// Whose sessions a request may see: `?name=` for a server admin (nil: everyone's), always the requester
    /// for anyone else.
    /// - Throws: ``HTTPFailure`` `403` when a user names somebody else.
    private func sessionOwner(_ request: CouchRequest) throws -> String? {
        let named = request.query["name"]
        if request.user.isServerAdmin { return named ?? request.user.name }
        guard let own = request.user.name else { throw HTTPFailure.unauthorized("Authentication required.") }
        guard named == nil || named == own else {
            throw HTTPFailure.forbidden("Only a server admin may see or revoke another user's sessions.")
        }
        return own
    }

    private func sessionJSON(_ session: SessionRegistry.Session, current: Bool) -> JSONValue {
        var object: JSONObject = [
            "id": .string(session.id), "name": .string(session.name),
            "created": .number(JSONNumber(session.created)), "last_seen": .number(JSONNumber(session.lastSeen)),
            "address": session.address.map(JSONValue.string) ?? .null,
            "user_agent": session.userAgent.map(JSONValue.string) ?? .null, "current": .bool(current),
        ]
        if let maxLifetime = configuration.sessionMaxLifetime {
            object["ends_by"] = .number(JSONNumber(session.created + maxLifetime))
        }
        return .object(object)
    }
}
