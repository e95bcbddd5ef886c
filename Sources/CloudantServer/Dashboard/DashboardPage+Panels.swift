internal import CloudantCore
internal import CloudantStore
internal import Hummingbird
internal import Mustache

extension DashboardPage {
    /// `GET /_utils/db/NAME/panel/PANEL`: a module's page for the database, for users who may read it.
    func panelPage(_ database: String, panel name: String) async throws -> Response {
        let content = try await withPanel(database, named: name) { panel, context in
            (try await panel.render(context), context.path)
        }
        let base = DashboardHTML.databasePath(database)
        // Recorded like an API read of the database.
        var read = request
        read.segments = [database, "_panel", name]
        endpoint.auditDashboardCall(read, status: 200, etag: nil)
        let template: MustacheTemplate
        do {
            template = try MustacheTemplate(string: content.0.template)
        } catch {
            throw HTTPFailure(status: 500, error: "panel_template", reason: "The \(name) panel's template does not parse: \(error)")
        }
        var values = layout(title: content.0.heading, crumbs: [(database, base)])
        var panelValues = content.0.values as [String: Any]
        panelValues["path"] = content.1
        panelValues["csrf"] = csrfToken
        values["html"] = template.render(panelValues)
        return dashboard.renderer.page("panel", values)
    }

    /// `POST /_utils/db/NAME/panel/PANEL`: a panel's form, once its CSRF token checks out; then back to the
    /// panel's page with the query the panel returns.
    func submitPanel(_ database: String, panel name: String) async throws -> Response {
        let form = try checkedForm()
        let (query, path) = try await withPanel(database, named: name) { panel, context in
            (try await panel.submit(context, form: form.all), context.path)
        }
        return DashboardRenderer.redirect(to: path + (query.isEmpty ? "" : "?" + query))
    }

    /// Runs `body` with the panel named `name` and its context for `database`, once the user may read the
    /// database.
    ///
    /// The context reads the database itself, unless per-document access restricts the user: then it reads a
    /// ``DashboardPanelSnapshot`` of the documents they may see (a panel reads through the store's whole API,
    /// which knows nothing of access lists), removed once `body` is done.
    private func withPanel<Result: Sendable>(
        _ database: String, named name: String,
        _ body: (any DashboardPanel, DashboardPanelContext) async throws -> Result
    ) async throws -> Result {
        guard let panel = dashboard.panels.first(where: { $0.name == name }) else {
            throw HTTPFailure.notFound("No such dashboard panel.")
        }
        let store = try await endpoint.authorizedStore(database, for: request.user, access: .member)
        let path = DashboardHTML.databasePath(database) + "/panel/" + DashboardAPI.percentEncoded(name)
        let key = endpoint.configuration.encryptionKey
        let (parameters, userName, isServerAdmin) = (request.query.all, request.user.name, request.user.isServerAdmin)
        if let visibility = try await endpoint.readAccess(of: store, for: request.user).visibility {
            let snapshot = try await DashboardPanelSnapshot.make(
                of: store, name: database, visibility: visibility, under: endpoint.panelSnapshotsFolder, key: key)
            defer { snapshot.remove() }
            let context = DashboardPanelContext(
                database: database, store: snapshot.store, parameters: parameters, path: path, userName: userName,
                isServerAdmin: isServerAdmin, openReadOnly: { registry in try snapshot.openReadOnly(registry: registry) })
            return try await body(panel, context)
        }
        let file = try endpoint.registry.fileURL(database)
        let context = DashboardPanelContext(
            database: database, store: store, parameters: parameters, path: path, userName: userName,
            isServerAdmin: isServerAdmin,
            openReadOnly: { registry in
                var options = StoreOptions(registry: registry, readOnly: true)
                options.encryptionKey = key
                return try DocumentStore.open(name: database, fileURL: file, options: options)
            })
        return try await body(panel, context)
    }
}
