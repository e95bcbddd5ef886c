public import CloudantCore
internal import Foundation
internal import GRDB

/// What ``DocumentStore/createIndex(_:)`` did, as CouchDB's `POST /db/_index` answers.
public struct IndexCreation: Sendable, Hashable {
    /// Whether the index was created now or already existed with the same definition.
    public enum Result: String, Sendable, Hashable {
        /// Created now.
        case created
        /// An identical index already existed; nothing was written.
        case exists
    }

    /// Created or already there.
    public var result: Result
    /// The design document holding the index, `_design/<ddoc>`.
    public var id: String
    /// The index name.
    public var name: String

    /// CouchDB's body: `{"result": "created", "id": "_design/…", "name": "…"}`.
    public var json: JSONValue { ["result": .string(result.rawValue), "id": .string(id), "name": .string(name)] }
}

extension DocumentStore {
    /// Creates a Cloudant Query index (CouchDB's `POST /db/_index`) and fills it before returning.
    ///
    /// The index is kept in a `language: "query"` design document, as CouchDB keeps it, so it replicates;
    /// from then on it is updated in the same transaction as every write.
    ///
    /// ```swift
    /// try await store.createIndex(IndexDefinition(name: "by-age", fields: [.ascending("age")]))
    /// let adults = try await store.find(FindRequest(selector: try MangoSelector(["age": ["$gte": 18]])))
    /// ```
    /// - Throws: `CloudantError` with `QueryErrorKind.invalidIndex` for an invalid definition, or a
    ///   write error.
    @discardableResult
    public func createIndex(_ definition: IndexDefinition) async throws -> IndexCreation {
        let validated = try Self.validated(definition)
        let makeID = options.makeDocumentID
        let now = options.now
        let result = try await write(.storeUnwritable) { db in try Self.createIndex(validated, in: db, makeID: makeID, now: now) }
        if result == .created { notifier.publish() }
        return IndexCreation(result: result, id: validated.designDocumentID, name: validated.name)
    }

    /// The definition as `POST /db/_index` would read it: paths, filter and type validated, the design
    /// document defaulting to the index name.
    static func validated(_ definition: IndexDefinition) throws -> IndexDefinition {
        var definition = definition
        if definition.designDocument == nil { definition.designDocument = definition.name }
        var request: JSONObject = [
            "index": definition.definitionJSON, "ddoc": .string(definition.designDocumentID),
            "name": .string(definition.name), "type": .string(definition.type.rawValue),
        ]
        if let partitioned = definition.partitioned { request["partitioned"] = .bool(partitioned) }
        return try IndexDefinition(indexRequest: .object(request))
    }

    /// Adds a validated index to its design document, in the caller's write transaction.
    static func createIndex(
        _ validated: IndexDefinition, in db: Database, makeID: @escaping @Sendable () -> String,
        now: @escaping @Sendable () -> Date
    ) throws -> IndexCreation.Result {
        let id = validated.designDocumentID
        let existing = try DocumentRecord.fetch(id: id, in: db)
        let body = try existing.flatMap { $0.deleted ? nil : try IndexMaintainer.parse($0.body) }
        if let body, IndexDefinition.declared(inDesignDocument: id, body: body).contains(validated) {
            return .exists
        }
        var document = try validated.adding(toDesignDocument: body)
        document["_id"] = .string(id)
        if let existing, !existing.deleted { document["_rev"] = .string(existing.winnerRev.description) }
        var writer = try DocumentWriter(db: db, makeDocumentID: makeID, now: now)
        _ = try writer.writeInteractive(PreparedWrite(IncomingDocument(document)))
        try writer.finish()
        return .created
    }

    /// Every Cloudant Query index of the store, in (design document, name) order. The special `_all_docs`
    /// index is not included; ``indexListingJSON()`` adds it as CouchDB's `GET /db/_index` does.
    public func indexes() async throws -> [IndexDefinition] {
        try await read(.storeUnreadable) { db in try IndexCatalog.all(in: db).map(\.definition) }
    }

    /// CouchDB's `GET /db/_index` body: `{"total_rows": n, "indexes": [{"ddoc": null, "name": "_all_docs", …}, …]}`,
    /// in CouchDB's order (`_all_docs`, then by design document and name, byte by byte).
    public func indexListingJSON() async throws -> JSONValue {
        let (indexes, partitioned) = try await read(.storeUnreadable) { db in
            (try IndexCatalog.all(in: db).map(\.definition), try Self.isPartitioned(db))
        }
        let sorted = indexes.sorted { a, b in
            let (x, y) = (Array(a.designDocumentID.utf8), Array(b.designDocumentID.utf8))
            return x != y ? x.lexicographicallyPrecedes(y) : Array(a.name.utf8).lexicographicallyPrecedes(Array(b.name.utf8))
        }
        let listed = [Self.allDocsIndexJSON] + sorted.map { $0.listingJSON(databaseIsPartitioned: partitioned) }
        return ["total_rows": .number(JSONNumber(listed.count)), "indexes": .array(listed)]
    }

    /// CouchDB's special `_all_docs` index as `GET /db/_index` and `_explain` show it.
    static let allDocsIndexJSON: JSONValue = [
        "ddoc": nil, "name": "_all_docs", "type": "special", "def": ["fields": [["_id": "asc"]]],
    ]

    /// Deletes an index (CouchDB's `DELETE /db/_index/{ddoc}/{type}/{name}`); the design document goes too
    /// when it declares nothing else.
    ///
    /// - Parameters:
    ///   - designDocument: The design document, with or without `_design/`.
    ///   - name: The index's name.
    ///   - type: The index's type, `.json` unless it is a text index.
    /// - Throws: `CloudantError` with `QueryErrorKind.indexNotFound` when there is no such index.
    public func deleteIndex(designDocument: String, name: String, type: IndexDefinition.IndexType = .json) async throws {
        let id = designDocument.hasPrefix("_design/") ? designDocument : "_design/" + designDocument
        let makeID = options.makeDocumentID
        let now = options.now
        try await write(.storeUnwritable) { db in
            guard let existing = try DocumentRecord.fetch(id: id, in: db), !existing.deleted,
                let body = try IndexMaintainer.parse(existing.body),
                IndexDefinition.declared(inDesignDocument: id, body: body).contains(where: { $0.name == name && $0.type == type })
            else {
                throw QueryErrorKind.indexNotFound.error("Index not found: \(id) \(type.rawValue) \(name).", field: name)
            }
            var document = IndexDefinition.removing(name, type: type, fromDesignDocument: body) ?? ["_deleted": true]
            document["_id"] = .string(id)
            document["_rev"] = .string(existing.winnerRev.description)
            var writer = try DocumentWriter(db: db, makeDocumentID: makeID, now: now)
            _ = try writer.writeInteractive(PreparedWrite(IncomingDocument(document)))
            try writer.finish()
        }
        notifier.publish()
    }

    /// Creates the indexes registered entity kinds declare, when missing (run when a store opens, so a
    /// plugin's queries never meet a missing index).
    static func createDeclaredIndexes(_ options: StoreOptions, in db: Database) throws {
        for kind in options.registry.kinds {
            for index in kind.indexes {
                _ = try createIndex(validated(index), in: db, makeID: options.makeDocumentID, now: options.now)
            }
        }
    }
}
