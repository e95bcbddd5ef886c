public import CloudantCore
internal import GRDB

extension DocumentStore {
    private typealias Documents = StoreSchema.Documents

    /// Adds new entities in one transaction: all are stored, or none is.
    ///
    /// ```swift
    /// let saved = try await store.add([Note(id: "n1", text: "Call the clinic", revId: nil)])
    /// saved[0].revId   // "1-…"
    /// ```
    /// - Returns: the entities with their new `revId`.
    /// - Throws: `CloudantError` naming the failing item (`itemIndex`, `documentID`): `.conflict` when an id
    ///   already exists, `.unknownEntityType` when the type is not registered, `.invalidInput` when
    ///   validation rejects it.
    @discardableResult
    public func add<Entity: CloudantEntity>(_ items: [Entity]) async throws -> [Entity]
    where Entity.ID: CustomStringConvertible {
        try await writeEntities(items, code: .storeUnwritable, document: Self.newDocument)
    }

    /// Updates entities in one transaction; each must carry the revision it was read at.
    /// - Throws: `CloudantError` `.conflict` naming the item when its `revId` is missing or stale.
    @discardableResult
    public func update<Entity: CloudantEntity>(_ items: [Entity]) async throws -> [Entity]
    where Entity.ID: CustomStringConvertible {
        try await writeEntities(items, code: .storeUnwritable, document: Self.editedDocument)
    }

    /// Deletes entities in one transaction; each must carry the revision it was read at.
    /// - Returns: the entities with the tombstone's `revId`.
    /// - Throws: `CloudantError` `.conflict` naming the item when its `revId` is missing or stale.
    @discardableResult
    public func delete<Entity: CloudantEntity>(_ items: [Entity]) async throws -> [Entity]
    where Entity.ID: CustomStringConvertible {
        try await writeEntities(items, code: .storeUnwritable, document: Self.tombstone)
    }

    // MARK: The documents each write makes

    /// A new entity's document: no `_rev`, whatever the entity carries.
    package static func newDocument<Entity: CloudantEntity>(_ codec: EntityCodec<Entity>, _ item: Entity, _ index: Int) throws -> JSONObject {
        var document = try codec.document(for: item, index: index, includeRev: false)
        document["_rev"] = nil
        return document
    }

    /// An edited entity's document, on the revision it was read at.
    package static func editedDocument<Entity: CloudantEntity>(_ codec: EntityCodec<Entity>, _ item: Entity, _ index: Int) throws -> JSONObject {
        guard item.revId != nil else {
            throw CloudantError(
                .conflict, "An update must carry the revision it was read at (revId); read the entity first.",
                context: .init(documentID: item.id.description, kind: codec.kind.name, itemIndex: index))
        }
        return try codec.document(for: item, index: index)
    }

    /// A deleted entity's tombstone, on the revision it was read at.
    package static func tombstone<Entity: CloudantEntity>(_ codec: EntityCodec<Entity>, _ item: Entity, _ index: Int) throws -> JSONObject {
        guard let rev = item.revId else {
            throw CloudantError(
                .conflict, "A delete must carry the revision it was read at (revId); read the entity first.",
                context: .init(documentID: item.id.description, kind: codec.kind.name, itemIndex: index))
        }
        return ["_id": .string(item.id.description), "_rev": .string(rev), "_deleted": true]
    }

    /// Every live entity of a kind, ordered by id.
    /// - Throws: `CloudantError` `.unknownEntityType`, or `.invalidInput` naming a document that no
    ///   longer decodes (nothing is dropped silently).
    public func get<Entity: CloudantEntity>(_ type: Entity.Type) async throws -> [Entity]
    where Entity.ID: CustomStringConvertible {
        let codec = EntityCodec(kind: try options.entityKind(for: type))
        let documents = try await read(.storeUnreadable) { db in
            let sql =
                "SELECT \(DocumentRecord.selectColumns) FROM \(Documents.table) "
                + "WHERE \(Documents.kind) = \(StoreSchema.DocumentKinds.numberOfBoundName) AND \(Documents.deleted) = 0 "
                + "ORDER BY \(Documents.id)"
            return try Row.fetchAll(db, sql: sql, arguments: [codec.kind.name]).compactMap { row in
                let record = try DocumentRecord(row: row, in: db)
                return try DocumentAssembler(db: db, record: record).document(rev: record.winnerRev, options: ReadOptions())
            }
        }
        return try documents.map(codec.entity(from:))
    }

    /// The entity with this id.
    /// - Throws: `CloudantError` `.notFound` when there is no live entity of this kind with the id.
    public func get<Entity: CloudantEntity>(_ type: Entity.Type, id: Entity.ID) async throws -> Entity
    where Entity.ID: CustomStringConvertible {
        let found = try await get(type, ids: [id])
        guard let entity = found.first else {
            throw CloudantError(.notFound, "missing", context: .init(documentID: id.description))
        }
        return entity
    }

    /// The entities with these ids, in the order given.
    /// - Throws: `CloudantError` `.notFound` naming the first id with no live entity of this kind.
    public func get<Entity: CloudantEntity>(_ type: Entity.Type, ids: [Entity.ID]) async throws -> [Entity]
    where Entity.ID: CustomStringConvertible {
        let codec = EntityCodec(kind: try options.entityKind(for: type))
        let keys = ids.map(\.description)
        let kindName = codec.kind.name
        let documents = try await read(.storeUnreadable) { db in
            try keys.enumerated().map { index, id -> JSONObject in
                guard let record = try DocumentRecord.fetch(id: id, in: db), !record.deleted,
                    let document = try DocumentAssembler(db: db, record: record).document(
                        rev: record.winnerRev, options: ReadOptions())
                else {
                    throw CloudantError(.notFound, "missing", context: .init(documentID: id, kind: kindName, itemIndex: index))
                }
                guard record.kind == kindName else {
                    throw CloudantError(
                        .notFound, "The document is a '\(record.kind ?? "plain document")', not a '\(kindName)'.",
                        context: .init(documentID: id, kind: kindName, itemIndex: index))
                }
                return document
            }
        }
        return try documents.map(codec.entity(from:))
    }

    /// Writes every item in one transaction; the first failure rolls everything back and is thrown.
    private func writeEntities<Entity: CloudantEntity>(
        _ items: [Entity], code: CloudantError.Code,
        document: (EntityCodec<Entity>, Entity, Int) throws -> JSONObject
    ) async throws -> [Entity] where Entity.ID: CustomStringConvertible {
        try await writeEntities(items, code: code, enqueue: nil, document: document).entities
    }

    /// Writes every item in one transaction and, with `enqueue`, records each new revision as a
    /// ``PendingWrite`` for that remote in the same transaction, so the queue holds a write exactly when
    /// the store does.
    func writeEntities<Entity: CloudantEntity>(
        _ items: [Entity], code: CloudantError.Code, enqueue: (remote: String, action: PendingWrite.Action)?,
        document: (EntityCodec<Entity>, Entity, Int) throws -> JSONObject
    ) async throws -> (entities: [Entity], pending: [PendingWrite]) where Entity.ID: CustomStringConvertible {
        let codec = EntityCodec(kind: try options.entityKind(for: Entity.self))
        let incoming = try items.enumerated().map { index, item in
            do {
                return try IncomingDocument(document(codec, item, index))
            } catch let error as CloudantError {
                throw error.adding {
                    $0.itemIndex = index
                    $0.kind = codec.kind.name
                }
            }
        }
        let kindName = codec.kind.name
        // The same writer as `put` and `_bulk_docs`: validation functions and a partition's size bound apply to
        // entity writes too, as CouchDB's updater applies them to every interactive write.
        let setup = interactiveWriterSetup()
        let prepared = await PreparedWrite.prepareAll(incoming, compression: setup.compression)
        let now = setup.now()
        let (revisions, pending) = try await write(code) { db in
            var writer = try setup.writer(in: db)
            let written = try prepared.enumerated().map { index, document in
                do {
                    return try writer.writeInteractive(document)
                } catch let error as CloudantError {
                    throw error.adding {
                        $0.itemIndex = index
                        $0.kind = kindName
                        $0.documentID = document.incoming.id
                    }
                }
            }
            try writer.finish()
            guard let enqueue else { return (written.map(\.rev), [PendingWrite]()) }
            let rows = written.map {
                PendingWriteRecord.New(documentID: $0.id, rev: $0.rev, action: enqueue.action, kind: kindName)
            }
            return (written.map(\.rev), try PendingWriteRecord.append(rows, remote: enqueue.remote, at: now, in: db))
        }
        notifier.publish()
        let entities = zip(items, revisions).map { item, rev in
            var stored = item
            stored.revId = rev
            return stored
        }
        return (entities, pending)
    }
}
