public import CloudantCore
internal import Foundation

extension DocumentStore {
    /// A design document's filter function as a changes filter (``ChangesOptions/filter``), as CouchDB runs
    /// `_changes?filter=ddoc/name`: a document passes when the function returns true for it and `request`.
    ///
    /// Set ``ChangesOptions/filterSeesRevisions`` with it, so the function sees documents as CouchDB hands them
    /// over (with `_revisions`):
    ///
    /// ```swift
    /// var options = ChangesOptions()
    /// options.filter = try await store.changesFilter("app/mine", request: store.filterRequest(query: ["owner": "ada"]))
    /// options.filterSeesRevisions = true
    /// let mine = try await store.changes(options)
    /// ```
    /// - Parameters:
    ///   - name: `ddoc/name`.
    ///   - request: The request object the function receives (``filterRequest(query:)`` makes one).
    /// - Throws: `CloudantError` `.notFound` for a missing design document or function (`missing json key:
    ///   …`), `.invalidInput` for a name not of the form `ddoc/name`, `.notImplemented` without an engine.
    public func changesFilter(_ name: String, request: JSONObject) async throws -> @Sendable (JSONObject) throws -> Bool {
        let parts = name.split(separator: "/").map(String.init)
        guard parts.count == 2 else {
            throw CloudantError(.invalidInput, "`filter` must be of the form `designname/filtername`", context: .init(field: "filter"))
        }
        let ddoc = try await document(id: "_design/" + parts[0])
        guard case .object(let filters)? = ddoc["filters"] else {
            throw CloudantError(.notFound, "missing json key: filters", context: .init(documentID: "_design/" + parts[0]))
        }
        guard filters[parts[1]] != nil else {
            throw CloudantError(.notFound, "missing json key: \(parts[1])", context: .init(documentID: "_design/" + parts[0]))
        }
        let runtime = try runtime(for: ddoc["language"]?.stringValue ?? "javascript")
        let function = parts[1]
        return { document in
            let answer = try runtime.callDesignFunction(
                ddoc, path: ["filters", function], arguments: [[.object(document)], .object(request)], session: nil)
            return answer == [true, [true]]
        }
    }

    /// The request object a filter function gets when the store filters its own changes (a replication from
    /// it): `query` holds the parameters, the user is the store's owner (`_admin`).
    public func filterRequest(query: [String: String] = [:]) async throws -> JSONObject {
        let info = try await self.info().json
        let security = try await securityObject() ?? .object(JSONObject())
        let path: [JSONValue] = [.string(name), "_changes"]
        return [
            "info": info, "uuid": .string(StoreOptions.randomHexID()), "id": .null, "method": "GET", "requested_path": .array(path),
            "path": .array(path), "raw_path": .string("/" + name + "/_changes"),
            "query": .object(JSONObject(query.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) })),
            "headers": [:], "body": "", "peer": "127.0.0.1", "form": [:], "cookie": [:],
            "userCtx": ["db": .string(name), "name": .null, "roles": ["_admin"]], "secObj": security,
        ]
    }
}
