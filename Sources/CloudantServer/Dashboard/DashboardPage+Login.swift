internal import CloudantCore
internal import Hummingbird

extension DashboardPage {
    /// The login form; `next` is where to go after (only dashboard pages are accepted).
    func loginPage(next: String?, status: Int = 200, failure: String? = nil, name: String = "") -> Response {
        var values = layout(title: "Log in", failure: failure)
        values["next"] = Self.safeNext(next)
        values["name"] = name
        return dashboard.renderer.page("login", values, status: status)
    }

    /// `POST /_utils/login`: checks the name and password like `POST /_session` and starts a cookie session.
    func logIn() async throws -> Response {
        // No token yet (nobody is logged in), but another site must not log a browser in (login CSRF).
        try DashboardCSRF.requireSameSite(request)
        let form = try DashboardForm(request)
        let next = Self.safeNext(form["next"])
        guard let name = form["name"], let password = form["password"] else {
            return loginPage(next: next, status: 400, failure: "Give a name and a password.")
        }
        if endpoint.authenticator.isAdminParty { return DashboardRenderer.redirect(to: next) }
        let user: UserContext
        do {
            user = try await endpoint.login(name: name, password: password, clientAddress: request.clientAddress)
        } catch let failure as HTTPFailure {
            return loginPage(next: next, status: failure.body.status, failure: failure.body.reason, name: name)
        }
        guard
            let started = await endpoint.authenticator.startSession(
                for: user, address: request.clientAddress, userAgent: request.header(.userAgent))
        else {
            return loginPage(next: next, status: 401, failure: "Name or password is incorrect.", name: name)
        }
        var response = DashboardRenderer.redirect(to: next)
        response.headers[.setCookie] = endpoint.authenticator.setCookieHeader(started.cookie)
        return response
    }

    /// `POST /_utils/logout`: ends the cookie session on the server and clears the cookie.
    func logOut() async throws -> Response {
        _ = try checkedForm()
        if let current = request.session {
            await endpoint.authenticator.sessions.revoke { $0.id == current.id }
        }
        var response = DashboardRenderer.redirect(to: "/_utils/login")
        response.headers[.setCookie] = endpoint.authenticator.clearCookieHeader
        return response
    }

    /// `next` when it is a dashboard path on this server, else the databases page (no open redirect).
    static func safeNext(_ next: String?) -> String {
        guard let next, next.hasPrefix("/_utils/"), !next.contains("//"), !next.contains("\\") else { return "/_utils/" }
        return next
    }
}
