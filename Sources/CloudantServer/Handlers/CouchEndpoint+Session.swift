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
                return try Self.answer(
                    failure.body.json, status: 401, cookie: authenticator.clearCookieHeader, redirect: request.query["fail"],
                    headers: failure.headers, for: request)
            }
            guard
                let started = await authenticator.startSession(
                    for: user, address: request.clientAddress, userAgent: request.header(.userAgent))
            else {
                throw HTTPFailure.unauthorized("Name or password is incorrect.")
            }
            return try Self.answer(
                ["ok": true, "name": .string(name), "roles": .array(user.roles.map(JSONValue.string))], status: 200,
                cookie: authenticator.setCookieHeader(started.cookie), redirect: request.query["next"], for: request)
        case .delete:
            // Logging out ends the session on the server too, so a copy of the cookie is useless afterwards.
            if let current = request.session {
                await authenticator.sessions.revoke { $0.id == current.id }
            }
            return try Self.answer(
                ["ok": true], status: 200, cookie: authenticator.clearCookieHeader, redirect: request.query["next"], for: request)
        default:
            throw unsupported("GET,HEAD,POST,DELETE")
        }
    }

    /// A session answer with its cookie: `status`, or `302` to `page` when the request names one (`next`,
    /// `fail`), at the page's absolute URI (`couch_httpd:absolute_uri/2`), which must be a path on this server.
    /// - Throws: ``HTTPFailure`` `400 bad_request` "path must begin with a /." for any other page.
    private static func answer(
        _ body: JSONValue, status: Int, cookie: String, redirect page: String?, headers: [(String, String)] = [],
        for request: CouchRequest
    ) throws -> Response {
        var headers = [("Set-Cookie", cookie)] + headers
        guard let page else { return CouchResponse.json(body, status: status, headers: headers) }
        guard page.hasPrefix("/") else { throw HTTPFailure.badRequest("path must begin with a /.") }
        headers.append(("Location", request.absoluteURI(page)))
        return CouchResponse.json(body, status: 302, headers: headers)
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
