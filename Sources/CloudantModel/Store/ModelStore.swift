internal import CloudantCore
public import CloudantModelSchema
public import CloudantStore
internal import Foundation

/// An object model on a document store: Core Data's persistent store, on Linux, writing CDTDatastore's
/// Core Data bridge layout so databases replicate with apps that used `CDTIncrementalStore`.
///
/// Opening writes (or checks) the `CDTISMetaData` document and migrates objects stored under an older model
/// version. Saves keep inverse relationships in step and deletes apply delete rules, each in one
/// transaction; fetches along relationships read every related object of a batch in one call.
///
/// ```swift
/// let store = try DocumentStore.open(name: "recipes")
/// let models = try await ModelStore.open(store, model: RecipesModel.objectModel)
/// var soup = Recipe(name: "Soup")
/// let leek = Ingredient(name: "Leek", recipe: ToOne(soup))
/// try await models.save(ModelChanges().saving(soup).saving(leek))
/// soup = try await models.fetch(Recipe.self, id: soup.id)   // soup.ingredients.ids == [leek.id]
/// ```
public final class ModelStore: Sendable {
    /// The document store.
    public let store: DocumentStore
    /// The model, with every version.
    public let model: ObjectModel
    /// The metadata document as it is after opening.
    public let metadata: IncrementalStoreMetadata
    let counter = ReadCounter()

    init(store: DocumentStore, model: ObjectModel, metadata: IncrementalStoreMetadata) {
        self.store = store
        self.model = model
        self.metadata = metadata
    }

    /// Opens `model` on `store`: writes `CDTISMetaData` when the store has none, migrates objects written
    /// under an older version of the model (then rewrites the metadata), and creates the model's indexes.
    ///
    /// - Throws: `CloudantError` `CloudantError.Code.modelMismatch` when the
    ///   stored hashes match no version of `model`; `.schemaViolation` for a malformed metadata document.
    public static func open(_ store: DocumentStore, model: ObjectModel) async throws -> ModelStore {
        let current = model.current
        var stored: JSONObject?
        do {
            stored = try await store.document(id: IncrementalStore.metadataDocumentID)
        } catch let error as CloudantError where error.code == .notFound {
            stored = nil
        }
        let metadata: IncrementalStoreMetadata
        if let stored {
            let found = try IncrementalStoreMetadata(document: stored)
            guard let version = found.matchingVersion(in: model) else {
                throw CloudantError(
                    .modelMismatch,
                    "The store was written with a model whose version hashes match no version of '\(model.name)'; "
                        + "open it with that model, or add that version to the model file.",
                    context: .init(documentID: IncrementalStore.metadataDocumentID, database: store.name))
            }
            if version.version == current.version {
                metadata = found
            } else {
                metadata = IncrementalStoreMetadata(storeUUID: found.storeUUID, version: current)
                try await migrate(store, model: model, from: version, metadata: metadata, metadataRev: stored["_rev"]?.stringValue)
            }
        } else {
            metadata = IncrementalStoreMetadata(storeUUID: store.uuid, version: current)
            var document = metadata.body
            document["_id"] = .string(IncrementalStore.metadataDocumentID)
            try await store.put(document)
        }
        var created: Set<String> = []
        for entity in current.entities {
            for index in entity.indexDefinitions where created.insert(index.name).inserted {
                try await store.createIndex(index)
            }
        }
        return ModelStore(store: store, model: model, metadata: metadata)
    }

    /// Rewrites every object of an entity whose properties changed, and the metadata, in one transaction.
    static func migrate(
        _ store: DocumentStore, model: ObjectModel, from version: ModelVersion, metadata: IncrementalStoreMetadata,
        metadataRev: String?
    ) async throws {
        let steps = ModelMigration.path(in: model, from: version, to: model.current)
        let entities = Set(steps.flatMap(\.changes.keys))
        var writes: [JSONObject] = []
        for entity in entities.sorted() {
            for var document in try await documents(of: entity, in: store) {
                var changed = false
                for step in steps { changed = step.migrate(&document) || changed }
                if changed { writes.append(document) }
            }
        }
        var metadataDocument = metadata.body
        metadataDocument["_id"] = .string(IncrementalStore.metadataDocumentID)
        if let metadataRev { metadataDocument["_rev"] = .string(metadataRev) }
        writes.append(metadataDocument)
        try await store.writeAtomically(writes)
    }

    /// Every live document of `entity`, with `_id` and `_rev`.
    static func documents(of entity: String, in store: DocumentStore) async throws -> [JSONObject] {
        let selector = try MangoSelector([IncrementalStore.entityNameKey: .string(entity)])
        return try await store.find(FindRequest(selector: selector, limit: Int.max)).docs
    }

    /// The current version of the model.
    public var version: ModelVersion { model.current }

    /// How many times this model store has read documents from the store: a fetch along a relationship
    /// reads once per call, whatever the number of objects (no N+1).
    public var storeReads: Int { counter.value }

    // MARK: Reading

    /// The live documents with these ids (missing and deleted ones are left out), in one read.
    func load(_ ids: some Collection<String>, attachments: Bool = false) async throws -> [String: JSONObject] {
        let unique = Array(Set(ids)).sorted()
        guard !unique.isEmpty else { return [:] }
        counter.increment()
        let result = try await store.allDocs(
            AllDocsOptions(includeDocs: true, keys: unique, documentOptions: ReadOptions(attachments: attachments)))
        var found: [String: JSONObject] = [:]
        for row in result.rows {
            guard let document = row["doc"]?.objectValue, let id = document["_id"]?.stringValue else { continue }
            found[id] = document
        }
        return found
    }

    static func needsAttachments(_ entity: EntityDescription) -> Bool {
        entity.properties.contains { $0.type == .binary || $0.type == .xform }
    }

    /// The objects with these ids, in the order given; ids with no live object are left out.
    ///
    /// ```swift
    /// let recipes = try await models.fetch(Recipe.self, ids: ["recipe-1", "recipe-2"])
    /// ```
    /// - Throws: `CloudantError.Code.schemaViolation` naming a document that is of another
    ///   entity or does not follow the schema.
    public func fetch<Entity: ModelEntity>(_ type: Entity.Type, ids: [String]) async throws -> [Entity] {
        let documents = try await load(ids, attachments: Self.needsAttachments(Entity.entity))
        return try ids.compactMap { id in try documents[id].map(Entity.init(jsonObject:)) }
    }

    /// The object with this id.
    /// - Throws: `CloudantError` `.notFound` when there is no live object with the id.
    public func fetch<Entity: ModelEntity>(_ type: Entity.Type, id: String) async throws -> Entity {
        guard let object = try await fetch(type, ids: [id]).first else {
            throw CloudantError(.notFound, "missing", context: .init(documentID: id, kind: Entity.entity.name))
        }
        return object
    }

    /// Every live object of an entity (through the `CDTISEntityName` index).
    /// - Throws: `CloudantError.Code.schemaViolation` naming a document that does not decode.
    public func fetchAll<Entity: ModelEntity>(_ type: Entity.Type) async throws -> [Entity] {
        counter.increment()
        var documents = try await Self.documents(of: Entity.entity.name, in: store)
        if Self.needsAttachments(Entity.entity), documents.contains(where: { $0["_attachments"] != nil }) {
            let withData = try await load(documents.compactMap { $0["_id"]?.stringValue }, attachments: true)
            documents = documents.compactMap { $0["_id"]?.stringValue.flatMap { withData[$0] } }
        }
        return try documents.map(Entity.init(jsonObject:))
    }

    /// The destinations of a to-many relationship for a batch of objects, read in one call.
    ///
    /// ```swift
    /// let byRecipe = try await models.fetch(\Recipe.ingredients, of: recipes)
    /// byRecipe[recipes[0].id]   // [Ingredient], in relationship order
    /// ```
    /// - Throws: `CloudantError.Code.schemaViolation` naming a related document of another entity.
    public func fetch<Source: ModelEntity, Destination: ModelEntity>(
        _ relationship: KeyPath<Source, ToMany<Destination>>, of sources: [Source]
    ) async throws -> [String: [Destination]] {
        let idsBySource = sources.map { ($0.id, $0[keyPath: relationship].ids) }
        let objects = try await fetchByID(Destination.self, ids: idsBySource.flatMap(\.1))
        var result: [String: [Destination]] = [:]
        for (source, ids) in idsBySource { result[source] = ids.compactMap { objects[$0] } }
        return result
    }

    /// The destination of a to-one relationship for a batch of objects, read in one call; objects with no
    /// destination (or a missing one) are left out.
    public func fetch<Source: ModelEntity, Destination: ModelEntity>(
        _ relationship: KeyPath<Source, ToOne<Destination>>, of sources: [Source]
    ) async throws -> [String: Destination] {
        let pairs = sources.compactMap { source in source[keyPath: relationship].id.map { (source.id, $0) } }
        let objects = try await fetchByID(Destination.self, ids: pairs.map(\.1))
        var result: [String: Destination] = [:]
        for (source, id) in pairs { result[source] = objects[id] }
        return result
    }

    func fetchByID<Entity: ModelEntity>(_ type: Entity.Type, ids: [String]) async throws -> [String: Entity] {
        let documents = try await load(ids, attachments: Self.needsAttachments(Entity.entity))
        var objects: [String: Entity] = [:]
        for (id, document) in documents { objects[id] = try Entity(jsonObject: document) }
        return objects
    }
}

/// Counts store reads for ``ModelStore/storeReads``.
final class ReadCounter: @unchecked Sendable {
    // `lock` protects `count`.
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() { lock.withLock { count += 1 } }
}
