internal import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    /// Describes a design document's view index, as `GET /db/_design/{ddoc}/_info` reports it; an index not
    /// built yet reports sequence 0 and every document pending.
    ///
    /// - Throws: `CloudantError` `.notFound` when the design document does not exist.
    public func viewIndexInfo(designDocument: String) async throws -> ViewIndexInfo {
        let (definition, spec) = try await designViewIndex(designDocument)
        let running = viewMaintenance.isUpdating
        return try await read(.storeUnreadable) { db in
            let index = try ViewIndexCatalog.find(signature: spec.signature, in: db)
            let (file, active, external) = try index.map { try ViewIndexTable.sizes(of: $0.tableName, in: db) } ?? (0, 0, 0)
            // `couch_index`'s `pending_updates`: sequences, not documents (a document changed three times is three).
            let pending = Int(max(try SequenceAllocator.latest(in: db) - (index?.updateSeq ?? 0), 0))
            return ViewIndexInfo(
                signature: spec.signature, language: definition.language, updateSeq: index?.updateSeq ?? 0,
                purgeSeq: index?.purgeSeq ?? 0, pendingChanges: pending, fileSize: file, activeSize: active,
                externalSize: external, updateOptions: spec.definition["update_options"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                updaterRunning: running)
        }
    }

    /// Removes the view indexes nothing uses any more (CouchDB's `_view_cleanup`): those of design documents
    /// deleted or whose views changed, and Swift views' indexes older than the newest version of each name.
    ///
    /// - Returns: The signatures removed.
    @discardableResult
    public func cleanupViewIndexes() async throws -> [String] {
        try await viewMaintenance.run(path: fileURL.path, configuration: pool.configuration) { connection in
            try connection.write { db in
                var live: Set<String> = []
                for row in try Row.fetchAll(
                    db,
                    sql: "SELECT \(StoreSchema.Documents.bodyJSON) FROM \(StoreSchema.Documents.table) WHERE "
                        + "\(StoreSchema.Documents.id) LIKE '\\_design/%' ESCAPE '\\' AND \(StoreSchema.Documents.deleted) = 0")
                {
                    let body: String? = row[0]
                    guard let body, case .object(let document)? = try? JSONValue(parsing: body) else { continue }
                    let definition = ViewIndexDefinition(designDocument: document)
                    if definition.hasViews { live.insert(definition.signature) }
                }
                let indexes = try ViewIndexCatalog.all(in: db)
                // The newest version of each Swift view stays.
                var newest: [String: Int] = [:]
                for index in indexes where index.language == "swift" {
                    let name = index.definition["swift_view"]?.stringValue ?? ""
                    let version = index.definition["version"]?.numberValue?.int64Value.map(Int.init) ?? 0
                    newest[name] = max(newest[name] ?? version, version)
                }
                var removed: [String] = []
                for index in indexes {
                    if index.language == "swift" {
                        let name = index.definition["swift_view"]?.stringValue ?? ""
                        let version = index.definition["version"]?.numberValue?.int64Value.map(Int.init) ?? 0
                        if version >= (newest[name] ?? 0) { continue }
                    } else if live.contains(index.signature) {
                        continue
                    }
                    try ViewIndexCatalog.drop(index, in: db)
                    removed.append(index.signature)
                }
                return removed
            }
        }
    }

    /// Rewrites a design document's view index in key order, so its pages are full again after many updates
    /// (CouchDB's `POST /db/_compact/{ddoc}`).
    ///
    /// - Throws: `CloudantError` `.notFound` when the design document does not exist.
    public func compactViewIndex(designDocument: String) async throws {
        let (_, spec) = try await designViewIndex(designDocument)
        try await viewMaintenance.run(path: fileURL.path, configuration: pool.configuration) { connection in
            try connection.write { db in
                guard let index = try ViewIndexCatalog.find(signature: spec.signature, in: db) else { return }
                try ViewIndexTable.rewrite(index.tableName, in: db)
            }
        }
    }
}

extension DocumentStore {
    /// The view index updates running now, as CouchDB's `/_active_tasks` lists its `indexer` tasks: a store
    /// brings one index up to date at a time, so there is at most one. Readable from any thread, also from
    /// inside a Swift view's map closure.
    public var activeViewIndexTasks: [ViewIndexTask] {
        viewMaintenance.progress.current.map { [$0] } ?? []
    }
}
