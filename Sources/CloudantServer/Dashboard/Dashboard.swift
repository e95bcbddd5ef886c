internal import CloudantCore
internal import HTTPTypes
internal import Hummingbird

/// The web dashboard at `/_utils` (CouchDB's Fauxton address): databases, documents, Mango queries and
/// indexes, the changes feed, and the panels modules add (health charts, care calendars).
///
/// Pages are HTML rendered on the server; they read and post without JavaScript. Behind them every read and
/// write is a call to the server's own CouchDB API as the logged-in user (``DashboardAPI``), so the
/// dashboard can do exactly what that user could do with curl, and the audit trail records those calls.
final class Dashboard: Sendable {
    let renderer = DashboardRenderer()
    let csrf: DashboardCSRF
    let panels: [any DashboardPanel]

    init(secret: [UInt8], panels: [any DashboardPanel]) {
        csrf = DashboardCSRF(secret: secret)
        self.panels = panels
    }
}

extension CouchEndpoint {
    /// `/_utils/…`: the dashboard, or `404` when the configuration turned it off.
    func dashboard(_ request: CouchRequest) async throws -> Response {
        guard let dashboard else { throw HTTPFailure.notFound("The dashboard is turned off on this server.") }
        return await DashboardPage(endpoint: self, dashboard: dashboard, request: request).respond()
    }
}

/// One dashboard request: its route, the user's API, the form token and what every page's layout shows.
struct DashboardPage {
    let endpoint: CouchEndpoint
    let dashboard: Dashboard
    let request: CouchRequest
    var api: DashboardAPI { DashboardAPI(endpoint: endpoint, origin: request) }
    var csrfToken: String { dashboard.csrf.token(for: request) }
    var path: ArraySlice<String> { request.segments.dropFirst() }

    /// The response to the request; failures become a page that says what went wrong.
    func respond() async -> Response {
        do {
            return try await route()
        } catch let failure as HTTPFailure {
            return message(failure.body.reason, heading: Self.heading(forStatus: failure.body.status), status: failure.body.status)
        } catch {
            let body = CouchErrorBody(error)
            return message(body.reason, heading: Self.heading(forStatus: body.status), status: body.status)
        }
    }

    private func route() async throws -> Response {
        let method = request.method
        let parts = Array(path)
        // What needs no login: the style sheet, the script and the login form itself.
        switch (method, parts.first) {
        case (.get, "assets"), (.head, "assets"): return try asset(parts.dropFirst().first)
        case (.get, "login"): return loginPage(next: request.query["next"])
        case (.post, "login"): return try await logIn()
        case (.post, "logout"): return try await logOut()
        default: break
        }
        guard request.user.isAuthenticated else {
            // To the login form, which comes back here once logged in.
            let here = "/_utils/" + parts.map(DashboardAPI.percentEncoded).joined(separator: "/")
            guard method == .get || method == .head else { throw HTTPFailure.unauthorized("Log in first.") }
            return DashboardRenderer.redirect(to: "/_utils/login?next=" + DashboardAPI.percentEncoded(here))
        }
        switch (method, parts.count) {
        case (.get, 0), (.head, 0): return try await databasesPage()
        case (.post, 1) where parts[0] == "databases": return try await createDatabase()
        case (.get, 1) where parts[0] == "open":
            return DashboardRenderer.redirect(to: DashboardHTML.databasePath(request.query["name"] ?? ""))
        default: break
        }
        guard parts.count >= 2, parts[0] == "db" else { throw HTTPFailure.notFound("No such dashboard page.") }
        let database = parts[1]
        let rest = Array(parts.dropFirst(2))
        switch (method, rest.first, rest.count) {
        case (.get, nil, _), (.head, nil, _): return try await databasePage(database)
        case (.post, "delete", 1): return try await deleteDatabase(database)
        case (.get, "new", 1): return try await newDocumentPage(database)
        case (.post, "save", 1): return try await saveDocument(database)
        case (.get, "doc", 2), (.head, "doc", 2): return try await documentPage(database, id: rest[1], rev: request.query["rev"])
        case (.post, "doc", 3) where rest[2] == "delete": return try await deleteDocument(database, id: rest[1])
        case (.post, "doc", 3) where rest[2] == "attach": return try await uploadAttachment(database, id: rest[1])
        case (.get, "query", 1): return try await queryPage(database)
        case (.get, "views", 1): return try await viewsPage(database)
        case (.post, "indexes", 1): return try await createIndex(database)
        case (.post, "indexes", 2) where rest[1] == "delete": return try await deleteIndex(database)
        case (.get, "changes", 1): return try await changesPage(database)
        case (.get, "panel", 2): return try await panelPage(database, panel: rest[1])
        case (.post, "panel", 2): return try await submitPanel(database, panel: rest[1])
        case (.post, _, _), (.get, _, _): throw HTTPFailure.notFound("No such dashboard page.")
        default: throw HTTPFailure.methodNotAllowed("GET,HEAD,POST")
        }
    }

    // MARK: What every page shares

    /// The layout's values: title, heading, user, breadcrumbs, the form token and any notice or failure.
    func layout(
        title: String, heading: String? = nil, crumbs: [(label: String, href: String)] = [], failure: String? = nil
    ) -> [String: Any] {
        var values: [String: Any] = [
            "title": title, "heading": heading ?? title, "csrf": csrfToken,
            "crumbs": crumbs.map { ["label": $0.label, "href": $0.href] },
        ]
        if request.user.isAuthenticated {
            values["user"] = [
                "name": request.user.name ?? "admin party", "canLogOut": request.session != nil, "csrf": csrfToken,
            ] as [String: Any]
        }
        if let done = request.query["done"], let notice = Self.notices[done] { values["notice"] = notice }
        if let failure { values["failure"] = failure }
        return values
    }

    /// The notices a redirect after a post may ask for (`?done=saved`): fixed texts, so a link cannot make the
    /// dashboard say something it did not.
    static let notices: [String: String] = [
        "created": "Database created.", "saved": "Document saved.", "deleted": "Document deleted.",
        "database-deleted": "Database deleted.", "uploaded": "Attachment uploaded.",
        "index-created": "Index created.", "index-deleted": "Index deleted.", "logged-in": "Logged in.",
    ]

    /// A page with a heading and a sentence (errors, mostly).
    func message(_ text: String, heading: String, status: Int) -> Response {
        dashboard.renderer.page("message", layout(title: heading, failure: text), status: status)
    }

    static func heading(forStatus status: Int) -> String {
        switch status {
        case 401: "Log in required"
        case 403: "Not allowed"
        case 404: "Not found"
        case 409: "Conflict"
        case 400..<500: "Request refused"
        default: "Server error"
        }
    }

    /// Reads the posted form and checks its CSRF token.
    func checkedForm() throws -> DashboardForm {
        let form = try DashboardForm(request)
        try dashboard.csrf.check(request, form: form)
        return form
    }

    /// Throws the API's failure as the page's.
    func require(_ answer: DashboardAPI.Answer) throws {
        guard answer.isSuccess else {
            throw HTTPFailure(status: answer.status, error: answer.error ?? "error", reason: answer.reason)
        }
    }

    private func asset(_ name: String?) throws -> Response {
        switch name {
        case "dashboard.css":
            return DashboardRenderer.response(Array(DashboardAssets.css.utf8), contentType: "text/css; charset=utf-8", cacheable: true)
        case "dashboard.js":
            return DashboardRenderer.response(
                Array(DashboardAssets.javascript.utf8), contentType: "text/javascript; charset=utf-8", cacheable: true)
        default:
            throw HTTPFailure.notFound("No such asset.")
        }
    }
}
