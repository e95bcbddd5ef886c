internal import CloudantCore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|POST|DELETE /_session`: cookie sessions, as CouchDB's `couch_httpd_auth`.
    func session(_ request: CouchRequest) async throws -> Response {
        switch request.method {
        case .get:
            return CouchResponse.json([
                "ok": true, "userCtx": request.user.json,
                "info": [
                    "authentication_handlers": ["cookie", "default"],
                    "authenticated": request.user.isAuthenticated ? "default" : nil,
                ],
            ])
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
    /// name a login tried from here too).
    func sessionCredentials(in request: CouchRequest) throws -> (name: String, password: String) {
        let contentType = request.header(.contentType)?.lowercased() ?? ""
        if contentType.hasPrefix("application/x-www-form-urlencoded") {
            // A form is what another site can make a browser post (JSON needs CORS): refused when it comes from
            // one, as the dashboard's forms are.
            try DashboardCSRF.requireSameSite(request)
            let form = QueryParameters(rawQuery: String(decoding: request.body, as: UTF8.self))
            guard let name = form["name"], let password = form["password"] else {
                throw HTTPFailure.badRequest("name and password are required")
            }
            return (name, password)
        }
        guard contentType.hasPrefix("application/json") else {
            throw HTTPFailure(
                status: 415, error: "bad_content_type",
                reason: "Content-Type must be application/x-www-form-urlencoded or application/json")
        }
        let body = try request.jsonObjectBody()
        guard let name = body["name"]?.stringValue, let password = body["password"]?.stringValue else {
            throw HTTPFailure.badRequest("name and password are required")
        }
        return (name, password)
    }
}
