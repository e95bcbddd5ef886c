public import CloudantCore
public import CloudantStore

/// A page a module adds to the dashboard for every database: health charts, a care calendar, your own.
///
/// The database page links to each panel at `/_utils/db/NAME/panel/<name>`; the dashboard checks that the
/// user may read the database before it asks the panel to render. When per-document access restricts the user
/// (the database turns `document_access` on and they are not one of its admins), the panel's ``DashboardPanelContext``
/// reads a copy of the documents they may see, made for the page (bodies, not attachments), so a panel never
/// shows what the user could not read through the API.
///
/// ```swift
/// struct CountPanel: DashboardPanel {
///     let name = "count"
///     let title = "Count"
///     func render(_ context: DashboardPanelContext) async throws -> DashboardPanelContent {
///         let count = try await context.store.allDocs().totalRows
///         return DashboardPanelContent(heading: "Count", template: "<p>{{count}} documents</p>", values: ["count": count])
///     }
/// }
/// var configuration = ServerConfiguration()
/// configuration.dashboardPanels = [CountPanel()]
/// ```
public protocol DashboardPanel: Sendable {
    /// The panel's path segment (letters, digits and `-`).
    var name: String { get }
    /// The link text on the database page.
    var title: String { get }
    /// The panel's page for `context.database`.
    /// - Throws: any error; the dashboard shows it as a failure page with its CouchDB status.
    func render(_ context: DashboardPanelContext) async throws -> DashboardPanelContent

    /// Carries out a form the panel's page posted (`<form method="post" action="{{path}}">` with
    /// `<input type="hidden" name="_csrf" value="{{csrf}}">`: the dashboard checks the token first) and returns
    /// the query string the browser is then sent to the panel's page with (`job=42`), or `""`.
    /// The default refuses: a panel without forms takes no posts.
    func submit(_ context: DashboardPanelContext, form: [String: String]) async throws -> String
}

extension DashboardPanel {
    /// Refuses the post.
    public func submit(_ context: DashboardPanelContext, form: [String: String]) async throws -> String {
        throw CloudantError(.invalidInput, "The \(title) page takes no forms.")
    }
}

/// What a panel renders from: the database, its store (opened for a user allowed to read it; for a user whom
/// per-document access restricts, a copy holding only the documents they may see) and the page's query
/// parameters.
public struct DashboardPanelContext: Sendable {
    /// The database's name.
    public let database: String
    /// The database's store.
    public let store: DocumentStore
    /// The page's query parameters (`?type=…&from=…`), by name.
    public let parameters: [String: String]
    /// The panel page's own path, for links and forms that come back to it.
    public let path: String
    /// The logged-in user's name (`nil` in admin party).
    public let userName: String?
    /// Whether the user is a server admin (only admins may, say, make the server connect elsewhere).
    public let isServerAdmin: Bool
    private let readOnlyOpener: @Sendable (EntityRegistry) throws -> DocumentStore

    /// Creates a context (the dashboard does; tests of a panel may too). `openReadOnly` opens the database's
    /// file again, read-only, with a registry; by default it fails.
    public init(
        database: String, store: DocumentStore, parameters: [String: String], path: String, userName: String? = nil,
        isServerAdmin: Bool = false,
        openReadOnly: @escaping @Sendable (EntityRegistry) throws -> DocumentStore = { _ in
            throw CloudantError(.invalidInput, "This context cannot open the database with a registry.")
        }
    ) {
        self.database = database
        self.store = store
        self.parameters = parameters
        self.path = path
        self.userName = userName
        self.isServerAdmin = isServerAdmin
        readOnlyOpener = openReadOnly
    }

    /// The panel page's path with `parameters` as its query, every name and value percent-encoded:
    /// `href([("type", "HKQuantityTypeIdentifierHeartRate"), ("by", "week")])`.
    public func href(_ parameters: [(String, String)]) -> String {
        parameters.isEmpty ? path : path + "?" + DashboardAPI.queryString(parameters)
    }

    /// The database opened again, read-only, with `registry`'s entity kinds: for the typed entity API (the
    /// health samples, the care entities), which the server's own stores do not register. Read-only, it
    /// creates none of the registry's indexes in the database.
    /// - Throws: as `DocumentStore.open(name:fileURL:options:)` throws.
    public func openReadOnly(registry: EntityRegistry) throws -> DocumentStore { try readOnlyOpener(registry) }
}

/// A panel's page: a heading, and a Mustache template with its values, rendered inside the dashboard's layout.
///
/// `{{name}}` escapes its value; use the unescaped `{{{name}}}` only for markup the panel drew itself from
/// escaped parts (an SVG chart), never for user data. The dashboard adds `path` (the panel page's path) and
/// `csrf` (the token a form posts as `_csrf`) to the values.
public struct DashboardPanelContent: Sendable {
    /// The page's heading and title.
    public var heading: String
    /// The Mustache template of the page's content.
    public var template: String
    /// The template's values: strings, numbers, booleans, arrays and `[String: any Sendable]` dictionaries.
    public var values: [String: any Sendable]

    /// Creates a panel page.
    public init(heading: String, template: String, values: [String: any Sendable]) {
        self.heading = heading
        self.template = template
        self.values = values
    }
}
