internal import CloudantCore
internal import CloudantStore
internal import Hummingbird
internal import Mustache

extension DashboardPage {
    /// `GET /_utils/db/NAME/panel/PANEL`: a module's page for the database, for users who may read it.
    func panelPage(_ database: String, panel name: String) async throws -> Response {
        let (panel, context) = try await panelContext(database, panel: name)
        let content = try await panel.render(context)
        let base = DashboardHTML.databasePath(database)
        // Recorded like an API read of the database.
        var read = request
        read.segments = [database, "_panel", name]
        endpoint.auditDashboardCall(read, status: 200, etag: nil)
        let template: MustacheTemplate
        do {
            template = try MustacheTemplate(string: content.template)
        } catch {
            throw HTTPFailure(status: 500, error: "panel_template", reason: "The \(name) panel's template does not parse: \(error)")
        }
        var values = layout(title: content.heading, crumbs: [(database, base)])
        var panelValues = content.values as [String: Any]
        panelValues["path"] = context.path
        panelValues["csrf"] = csrfToken
        values["html"] = template.render(panelValues)
        return dashboard.renderer.page("panel", values)
    }

    /// `POST /_utils/db/NAME/panel/PANEL`: a panel's form, once its CSRF token checks out; then back to the
    /// panel's page with the query the panel returns.
    func submitPanel(_ database: String, panel name: String) async throws -> Response {
        let form = try checkedForm()
        let (panel, context) = try await panelContext(database, panel: name)
        let query = try await panel.submit(context, form: form.all)
        return DashboardRenderer.redirect(to: context.path + (query.isEmpty ? "" : "?" + query))
    }

    /// The panel named `name` and its context for `database`, once the user may read the database.
    private func panelContext(_ database: String, panel name: String) async throws -> (any DashboardPanel, DashboardPanelContext) {
        guard let panel = dashboard.panels.first(where: { $0.name == name }) else {
            throw HTTPFailure.notFound("No such dashboard panel.")
        }
        let store = try await endpoint.authorizedStore(database, for: request.user, access: .member)
        let path = DashboardHTML.databasePath(database) + "/panel/" + DashboardAPI.percentEncoded(name)
        let file = try endpoint.registry.fileURL(database)
        let key = endpoint.configuration.encryptionKey
        let context = DashboardPanelContext(
            database: database, store: store, parameters: request.query.all, path: path, userName: request.user.name,
            isServerAdmin: request.user.isServerAdmin,
            openReadOnly: { registry in
                var options = StoreOptions(registry: registry, readOnly: true)
                options.encryptionKey = key
                return try DocumentStore.open(name: database, fileURL: file, options: options)
            })
        return (panel, context)
    }
}
