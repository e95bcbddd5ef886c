internal import CloudantCore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// `GET|HEAD|POST|DELETE /_session`: cookie sessions, as CouchDB's `couch_httpd_auth:handle_session_req/2`.
    ///
    /// `GET ?basic=true` asks an anonymous client to log in (`401`); `POST ?next=/path` and `DELETE ?next=/path`
    /// answer `302` to that path, and a failed `POST ?fail=/path` too, with the body they would have had.
    func session(_ request: CouchRequest) async throws -> Response {
        switch request.method {
        case .get, .head:
            if !request.user.isAuthenticated, request.query["basic"] == "true" {
                throw HTTPFailure.unauthorized("Please login.")
            }
            // `authenticated` names the handler that did (absent for an anonymous request), `authentication_db`
            // what the configuration sets (absent when it sets none), as CouchDB's `maybe_value` leaves them out.
            var info: JSONObject = [
                "authentication_handlers": .array(nodeConfiguration.authenticationHandlers.map { .string($0.rawValue) })
            ]
            if request.user.isAuthenticated { info["authenticated"] = .string((request.authenticatedBy ?? .basic).rawValue) }
            if let database = nodeConfiguration.value("chttpd_auth", "authentication_db") {
                info["authentication_db"] = .string(database)
            }
            let answer = CouchResponse.json(["ok": true, "userCtx": request.user.json, "info": .object(info)])
            return request.method == .head ? CouchResponse.head(of: answer) : answer
        case .post:
            let (name, password) = try sessionCredentials(in: request)
            let user: UserContext
            do {
                user = try await login(name: name, password: password, clientAddress: request.clientAddress)
            } catch let failure as HTTPFailure where failure.body.status == 401 {
                // A wrong name or password is answered, not raised (so no `WWW-Authenticate`), clears the
                // client's session cookie, and goes to `fail` when it names a page.
                var headers = [("Set-Cookie", authenticator.clearCookieHeader)]
                if let page = request.query["fail"] { headers.append(("Location", try Self.redirect(to: page, for: request))) }
                return CouchResponse.json(failure.body.json, status: headers.count > 1 ? 302 : 401, headers: headers + failure.headers)
            }
            guard
                let started = await authenticator.startSession(
                    for: user, address: request.clientAddress, userAgent: request.header(.userAgent))
            else {
                throw HTTPFailure.unauthorized("Name or password is incorrect.")
            }
            var headers = [("Set-Cookie", authenticator.setCookieHeader(started.cookie))]
            if let page = request.query["next"] { headers.append(("Location", try Self.redirect(to: page, for: request))) }
            return CouchResponse.json(
                ["ok": true, "name": .string(name), "roles": .array(user.roles.map(JSONValue.string))],
                status: headers.count > 1 ? 302 : 200, headers: headers)
        case .delete:
            // Logging out ends the session on the server too, so a copy of the cookie is useless afterwards.
            if let current = request.session {
                await authenticator.sessions.revoke { $0.id == current.id }
            }
            var headers = [("Set-Cookie", authenticator.clearCookieHeader)]
            if let page = request.query["next"] { headers.append(("Location", try Self.redirect(to: page, for: request))) }
            return CouchResponse.json(["ok": true], status: headers.count > 1 ? 302 : 200, headers: headers)
        default:
            throw unsupported("GET,HEAD,POST,DELETE")
        }
    }

    /// The `Location` of a session redirect: the page's absolute URI (`couch_httpd:absolute_uri/2`), which must
    /// be a path on this server.
    /// - Throws: ``HTTPFailure`` `400 bad_request` "path must begin with a /." otherwise.
    private static func redirect(to page: String, for request: CouchRequest) throws -> String {
        guard page.hasPrefix("/") else { throw HTTPFailure.badRequest("path must begin with a /.") }
        return request.absoluteURI(page)
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
