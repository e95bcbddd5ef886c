internal import CloudantCore
internal import CloudantStore
internal import Hummingbird
internal import Mustache

extension DashboardPage {
    /// `GET /_utils/db/NAME/panel/PANEL`: a module's page for the database, for users who may read it.
    func panelPage(_ database: String, panel name: String) async throws -> Response {
        guard let panel = dashboard.panels.first(where: { $0.name == name }) else {
            throw HTTPFailure.notFound("No such dashboard panel.")
        }
        let store = try await endpoint.authorizedStore(database, for: request.user, access: .member)
        let base = DashboardHTML.databasePath(database)
        let path = base + "/panel/" + DashboardAPI.percentEncoded(name)
        let file = try endpoint.registry.fileURL(database)
        let key = endpoint.configuration.encryptionKey
        let content = try await panel.render(
            DashboardPanelContext(
                database: database, store: store, parameters: request.query.all, path: path,
                openReadOnly: { registry in
                    var options = StoreOptions(registry: registry, readOnly: true)
                    options.encryptionKey = key
                    return try DocumentStore.open(name: database, fileURL: file, options: options)
                }))
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
        values["html"] = template.render(content.values as [String: Any])
        return dashboard.renderer.page("panel", values)
    }
}
