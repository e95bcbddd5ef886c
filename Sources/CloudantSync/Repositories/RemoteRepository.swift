public import CloudantCore
public import CloudantStore
internal import Foundation

/// A CouchDB-compatible database over HTTP as a ``Repository`` of one entity type: reads with `_find` and
/// `GET`, writes with `_bulk_docs` and revisions, in the same document format as the store.
///
/// ```swift
/// let remote = try RemoteDatabase(url: URL(string: "http://127.0.0.1:5984/notes")!, authentication: .basic(user: "ana", password: p))
/// let notes = RemoteRepository<Note>(database: remote, options: StoreOptions(registry: registry))
/// ```
/// CouchDB has no transactions: a write of several entities can succeed for some and fail for others.
/// The error then names the first document that failed, and the others are written.
public struct RemoteRepository<Entity: CloudantEntity>: Repository where Entity.ID: CustomStringConvertible {
    /// The database.
    public let database: RemoteDatabase
    /// The entity kinds (the same registry as the store's, so documents look the same on both sides).
    public let options: StoreOptions
    /// Documents per `_find` page when criteria ask for every match.
    public var pageSize: Int

    /// Creates a repository over `database`.
    public init(database: RemoteDatabase, options: StoreOptions = StoreOptions(), pageSize: Int = 1_000) {
        self.database = database
        self.options = options
        self.pageSize = pageSize
    }

    func codec() throws(CloudantError) -> EntityCodec<Entity> {
        do {
            return EntityCodec(kind: try options.entityKind(for: Entity.self))
        } catch {
            throw CloudantError.fromStore(error)
        }
    }

    public func find(_ criteria: RepositoryCriteria) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        let codec = try codec()
        var body: JSONObject = [
            "selector": criteria.selector(kindField: codec.kind.format.kindField, kind: codec.kind.name),
            "skip": .number(JSONNumber(criteria.skip)),
        ]
        if !criteria.sort.isEmpty { body["sort"] = .array(criteria.sort.map(\.json)) }
        var found: [Entity] = []
        do {
            // Page with bookmarks until the limit is reached or a page comes back short.
            var remaining = criteria.limit ?? Int.max
            while remaining > 0 {
                let page = min(remaining, pageSize)
                body["limit"] = .number(JSONNumber(page))
                let response = try await database.client.send("POST", "_find", body: .object(body))
                let answer = response.body
                guard let listed = answer?["docs"]?.arrayValue else { throw HTTPPeer.unexpected(response, "a _find answer without docs") }
                let docs = try listed.map { value -> JSONObject in
                    // Only what the selector asked for: documents of this entity kind.
                    guard case .object(let document) = value, EntityDocumentFormat.kindName(in: document) == codec.kind.name else {
                        throw CloudantError.peerViolation(
                            url: response.url,
                            violation: .unrequestedDocument(id: value["_id"]?.stringValue ?? "", rev: value["_rev"]?.stringValue ?? ""))
                    }
                    return document
                }
                found += try docs.map(codec.entity(from:))
                remaining -= docs.count
                guard docs.count == page, let bookmark = answer?["bookmark"]?.stringValue else { break }
                body["bookmark"] = .string(bookmark)
                body["skip"] = 0
            }
        } catch {
            throw CloudantError.fromRemote(error, url: database.url)
        }
        return answer(found)
    }

    public func findOne(id: Entity.ID) async throws(CloudantError) -> RepositoryResult<Entity?> {
        let codec = try codec()
        do {
            let response = try await database.client.send("GET", CouchHTTPClient.encode(id.description), accept: [404])
            if response.status != 404, response.body?["_id"]?.stringValue != id.description {
                // Another document than the one asked for (or none): not an answer to this request.
                throw CloudantError.peerViolation(
                    url: response.url,
                    violation: .unrequestedDocument(id: response.body?["_id"]?.stringValue ?? "", rev: response.body?["_rev"]?.stringValue ?? ""))
            }
            guard response.status != 404, let document = response.body?.objectValue,
                EntityDocumentFormat.kindName(in: document) == codec.kind.name
            else {
                return RepositoryResult(value: nil, origin: .remote, metadata: [.remote: RepositoryMetadata(date: options.now())])
            }
            return answer([try codec.entity(from: document)]).map(\.first)
        } catch {
            throw CloudantError.fromRemote(error, url: database.url, documentID: id.description)
        }
    }

    public func store(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await write(models, DocumentStore.newDocument)
    }

    public func update(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await write(models, DocumentStore.editedDocument)
    }

    public func remove(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await write(models, DocumentStore.tombstone)
    }

    public func storeOrUpdate(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        var prepared = models
        let unknown = models.filter { $0.revId == nil }.map { $0.id.description }
        if !unknown.isEmpty {
            let current = try await currentRevisions(of: unknown)
            for index in prepared.indices where prepared[index].revId == nil {
                prepared[index].revId = current[prepared[index].id.description]
            }
        }
        return try await write(prepared) { codec, item, index in
            item.revId == nil
                ? try DocumentStore.newDocument(codec, item, index) : try DocumentStore.editedDocument(codec, item, index)
        }
    }

    /// The winning revision of each live document among `ids` (`_all_docs` with keys).
    func currentRevisions(of ids: [String]) async throws(CloudantError) -> [String: String] {
        do {
            let body: JSONValue = ["keys": .array(ids.map { .string($0) })]
            let response = try await database.client.send("POST", "_all_docs", body: body)
            guard let rows = response.body?["rows"]?.arrayValue else { throw HTTPPeer.unexpected(response, "an _all_docs answer without rows") }
            var revisions: [String: String] = [:]
            for row in rows {
                guard let id = row["id"]?.stringValue, let rev = row["value"]?["rev"]?.stringValue,
                    row["value"]?["deleted"]?.boolValue != true
                else { continue }
                revisions[id] = rev
            }
            return revisions
        } catch {
            throw CloudantError.fromRemote(error, url: database.url)
        }
    }

    /// `POST _bulk_docs` of the documents `document` makes; the first per-document failure is thrown.
    private func write(
        _ models: [Entity], _ document: (EntityCodec<Entity>, Entity, Int) throws -> JSONObject
    ) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        let codec = try codec()
        let documents: [JSONValue]
        do {
            documents = try models.enumerated().map { index, item in .object(try document(codec, item, index)) }
        } catch {
            throw CloudantError.fromStore(error)
        }
        let rows: [JSONValue]
        do {
            rows = try await database.client.send("POST", "_bulk_docs", body: ["docs": .array(documents)]).body?.arrayValue ?? []
        } catch {
            throw CloudantError.fromRemote(error, url: database.url, documentID: models.count == 1 ? models[0].id.description : nil)
        }
        guard rows.count == models.count else {
            throw CloudantError.peerViolation(
                url: database.url.appendingPathComponent("_bulk_docs"),
                violation: .unexpectedShape("\(rows.count) results for \(models.count) documents"))
        }
        var written = models
        for (index, row) in rows.enumerated() {
            if let id = row["id"]?.stringValue, id != written[index].id.description {
                throw CloudantError.peerViolation(
                    url: database.url.appendingPathComponent("_bulk_docs"),
                    violation: .unexpectedShape("a result for \(id) where \(written[index].id.description) was written")
                ).adding { $0.documentID = written[index].id.description }
            }
            if let rev = row["rev"]?.stringValue, row["error"] == nil {
                written[index].revId = rev
                continue
            }
            let error = row["error"]?.stringValue ?? "unknown_error"
            let reason = row["reason"]?.stringValue ?? error
            // A row's error carries no status: CouchDB's for its name, and a refusal of that one document
            // (400) for a name CouchDB's table does not list.
            let status = CouchDBErrorName.httpStatus(of: error) ?? 400
            var refusal = CloudantError.peerRefused(
                url: database.url.appendingPathComponent("_bulk_docs"), status: status, error: error, reason: reason)
            refusal.context.documentID = written[index].id.description
            refusal.message += "; CouchDB writes each document on its own, so the other \(rows.count - 1) were still sent."
            throw refusal
        }
        return answer(written)
    }

    private func answer<Value: Sendable>(_ value: Value) -> RepositoryResult<Value> where Value: Collection, Value.Element == Entity {
        return RepositoryResult(
            value: value, origin: .remote, metadata: [.remote: RepositoryMetadata(revisions: value.revisionsByID(), date: options.now())])
    }
}
