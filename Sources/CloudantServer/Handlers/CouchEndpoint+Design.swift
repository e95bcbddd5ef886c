internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `/{db}/_design/{ddoc}/_{action}/…`, as CouchDB's `chttpd_db:handle_design_req` dispatches it: the
    /// design document must exist (`404 not_found` otherwise), then `_view`, `_info`, `_show`, `_list`,
    /// `_update` and `_rewrite` each have their handler. nil for any other path, which is an attachment's.
    ///
    /// - Parameter partition: From `/{db}/_partition/{partition}/_design/…`.
    func designFunction(
        _ request: CouchRequest, database: String, id: String, path: [String], partition: String? = nil
    ) async throws -> Response? {
        guard let action = path.first, ["_view", "_info", "_show", "_list", "_update", "_rewrite"].contains(action) else {
            return nil
        }
        if request.method == .head, ["_show", "_list", "_update", "_rewrite"].contains(action) {
            // CouchDB answers a HEAD as the GET it aliases it to (`chttpd:handle_request_int/1`), the body left out:
            // the functions see `GET` (an update function refuses it), and rewrite rules match it as `GET`.
            var asGet = request
            asGet.method = .get
            guard let answer = try await designFunction(asGet, database: database, id: id, path: path, partition: partition) else { return nil }
            return Response(status: answer.status, headers: answer.headers)
        }
        let store: DocumentStore
        var reader: UserContext?
        if action == "_show", database == usersDatabase, !request.user.isServerAdmin,
            let users = try await usersDatabaseForNonAdmin(request.user)
        {
            // A show reads its design document as the server does and its document as the user may
            // (`couch_users_db:after_doc_read`): their own whole, another's public fields only.
            store = users
            reader = request.user
        } else {
            store = try await authorizedStore(database, for: request.user, access: .member)
        }
        // As CouchDB's `ddoc_cache:open`: a missing design document is `missing`, a deleted one `deleted`.
        let ddoc = try await store.document(id: id)
        let rest = Array(path.dropFirst())
        switch action {
        case "_view":
            guard !rest.isEmpty else { throw unsupported("GET,POST,HEAD") }
            return try await view(request, database: database, designDocument: id, path: rest, partition: partition)
        case "_info":
            guard rest.isEmpty else { return nil }
            return try await designInfo(request, database: database, id: id)
        case "_show":
            return try await show(request, database: database, store: store, ddoc: ddoc, path: rest, reader: reader)
        case "_update":
            return try await update(request, database: database, store: store, ddoc: ddoc, path: rest)
        case "_list":
            return try await list(request, database: database, store: store, ddoc: ddoc, path: rest)
        case "_rewrite":
            return try await rewrite(request, database: database, store: store, ddoc: ddoc, path: rest)
        default:
            return nil
        }
    }
}
