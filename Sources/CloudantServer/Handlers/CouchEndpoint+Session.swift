internal import CloudantCore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|POST|DELETE /_session`: cookie sessions, as CouchDB's `couch_httpd_auth`.
    func session(_ request: CouchRequest) async throws -> Response {
        switch request.method {
        case .get:
            // `authenticated` names the handler that did (absent for an anonymous request), `authentication_db`
            // what the configuration sets (absent when it sets none), as CouchDB's `maybe_value` leaves them out.
            var info: JSONObject = [
                "authentication_handlers": .array(nodeConfiguration.authenticationHandlers.map { .string($0.rawValue) })
            ]
            if request.user.isAuthenticated { info["authenticated"] = .string((request.authenticatedBy ?? .basic).rawValue) }
            if let database = nodeConfiguration.value("chttpd_auth", "authentication_db") {
                info["authentication_db"] = .string(database)
            }
            return CouchResponse.json(["ok": true, "userCtx": request.user.json, "info": .object(info)])
        case .post:
            let (name, password) = try sessionCredentials(in: request)
            let user = try await login(name: name, password: password, clientAddress: request.clientAddress)
            guard
                let started = await authenticator.startSession(
                    for: user, address: request.clientAddress, userAgent: request.header(.userAgent))
            else {
                throw HTTPFailure.unauthorized("Name or password is incorrect.")
            }
            return CouchResponse.json(
                ["ok": true, "name": .string(name), "roles": .array(user.roles.map(JSONValue.string))],
                headers: [("Set-Cookie", authenticator.setCookieHeader(started.cookie))])
        case .delete:
            // Logging out ends the session on the server too, so a copy of the cookie is useless afterwards.
            if let current = request.session {
                await authenticator.sessions.revoke { $0.id == current.id }
            }
            return CouchResponse.json(["ok": true], headers: [("Set-Cookie", authenticator.clearCookieHeader)])
        default:
            throw unsupported("GET,HEAD,POST,DELETE")
        }
    }

    /// The name and password of a `POST /_session`, from a form or a JSON body (the audit trail reads the
    /// name a login tried from here too). As CouchDB's `couch_httpd_auth:handle_session_req`: the name is
    /// `name` or `username` (both only when equal), a missing password is empty.
    func sessionCredentials(in request: CouchRequest) throws -> (name: String, password: String) {
        let contentType = request.header(.contentType)?.lowercased() ?? ""
        let field: (String) -> String?
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            // A form is what another site can make a browser post (JSON needs CORS): refused when it comes from
            // one, as the dashboard's forms are.
            try DashboardCSRF.requireSameSite(request)
            let form = QueryParameters(rawQuery: String(decoding: request.body, as: UTF8.self))
            field = { form[$0] }
        } else if contentType.hasPrefix("application/json") {
            let body = try request.jsonObjectBody()
            field = { body[$0].map { $0.stringValue ?? $0.jsonString() } }
        } else {
            throw HTTPFailure(
                status: 415, error: "bad_content_type",
                reason: "Content-Type must be 'application/x-www-form-urlencoded' or 'application/json'")
        }
        let name: String
        switch (field("name"), field("username")) {
        case (nil, nil): throw HTTPFailure.badRequest("request body must contain a username")
        case (let couch?, nil): name = couch
        case (nil, let other?): name = other
        case (let couch?, let other?):
            guard couch == other else { throw HTTPFailure.badRequest("request body contains different usernames") }
            name = couch
        }
        return (name, field("password") ?? "")
    }
}
