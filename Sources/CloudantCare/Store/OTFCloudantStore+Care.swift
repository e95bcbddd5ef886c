public import CloudantCareModule
internal import CloudantCore
public import CloudantOnly
internal import CloudantStore
public import Dispatch
internal import Foundation

/// The Care flavour of the drop-in store: the `CareStore` behind the CareKit-named calls, and the generic
/// calls they are each one line over.
///
/// One `CareStore` serves a store for its whole life (its knowledge clock must have a single owner). The care
/// indexes are created on first use when the store was opened without `CarePlugin` (creating an index that
/// exists does nothing).
extension OTFCloudantStore {
    /// The care store behind the CareKit-named calls: versioned entities, events, knowledge-vector sync.
    public var careStore: CareStore { careCompanion.care }

    var careCompanion: OTFCareCompanion {
        companion(OTFCareCompanion.self) { OTFCareCompanion(care: CareStore(store: documentStore)) }
    }

    /// Runs `work` on the care store (its indexes ready) as `OTFCloudantStore.perform(_:_:)` runs calls.
    func care<Value: Sendable>(
        _ operation: OTFCloudantError.Operation, _ work: @escaping @Sendable (CareStore) async throws -> Value
    ) async throws(OTFCloudantError) -> Value {
        let companion = careCompanion
        return try await perform(operation) {
            try await companion.prepare()
            return try await work(companion.care)
        }
    }

    /// ``care(_:_:)`` with the result delivered to `completion` on `queue`.
    func care<Value: Sendable>(
        _ operation: OTFCloudantError.Operation, on queue: DispatchQueue,
        to completion: (@Sendable (Result<Value, OTFCloudantError>) -> Void)?,
        _ work: @escaping @Sendable (CareStore) async throws -> Value
    ) {
        let companion = careCompanion
        deliver(operation, on: queue, to: completion) {
            try await companion.prepare()
            return try await work(companion.care)
        }
    }

    // MARK: Generic care calls (CareKit's `OCKStore` shapes, for any care kind)

    /// The versions of `type` that match `query` (see `CareStore/fetch(_:query:)`): CareKit's rules, with
    /// the query's `limit` and `offset` honoured (the original ignored `offset` and stopped at 30).
    public func fetchCare<Entity: CareStorable>(_ type: Entity.Type, query: CareQuery = CareQuery())
        async throws(OTFCloudantError) -> [Entity]
    {
        try await care(.fetch) { try await $0.fetch(type, query: query) }
    }

    /// Adds the first version of each object, in one transaction (see `CareStore/add(_:importing:)`).
    @discardableResult
    public func addCare<Entity: CareStorable>(_ entities: [Entity]) async throws(OTFCloudantError) -> [Entity] {
        try await care(.add) { try await $0.add(entities) }
    }

    /// Adds a new version of each object, in one transaction (see `CareStore/update(_:importing:)`).
    @discardableResult
    public func updateCare<Entity: CareStorable>(_ entities: [Entity]) async throws(OTFCloudantError) -> [Entity] {
        try await care(.update) { try await $0.update(entities) }
    }

    /// Adds a tombstone version of each object, in one transaction (see `CareStore/delete(_:)`).
    @discardableResult
    public func deleteCare<Entity: CareStorable>(_ entities: [Entity]) async throws(OTFCloudantError) -> [Entity] {
        try await care(.delete) { try await $0.delete(entities) }
    }

    /// The current version of the object with `id` (CareKit's `fetchX(withID:)`): its newest live tip, by
    /// effective date then update date (concurrent tips are both current until resolved; the newest wins).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is no such object, or it was deleted.
    public func fetchCare<Entity: CareStorable>(_ type: Entity.Type, withID id: String) async throws(OTFCloudantError)
        -> Entity
    {
        try await care(.fetch) { care in
            let tips = try await care.history(type, ids: [id]).liveTips
            let newest = tips.max { left, right in
                (left.effectiveDate, left.updatedDate ?? .distantPast) < (right.effectiveDate, right.updatedDate ?? .distantPast)
            }
            guard let newest else {
                throw CloudantError(
                    .notFound, "No live \(Entity.careKindName) has this id.",
                    context: .init(documentID: id, kind: Entity.careKindName))
            }
            return newest
        }
    }
}

/// The generic care calls with a callback on a queue of the caller's, as CareKit's `OCKStore` offers them.
extension OTFCloudantStore {
    /// ``fetchCare(_:query:)`` with the result delivered to `completion` on `callbackQueue`.
    public func fetchCare<Entity: CareStorable>(
        _ type: Entity.Type, query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping OTFCompletion<[Entity]>
    ) {
        care(.fetch, on: callbackQueue, to: completion) { try await $0.fetch(type, query: query) }
    }

    /// ``fetchCare(_:withID:)`` with the result delivered to `completion` on `callbackQueue`.
    public func fetchCare<Entity: CareStorable>(
        _ type: Entity.Type, withID id: String, callbackQueue: DispatchQueue = .main,
        completion: @escaping OTFCompletion<Entity>
    ) {
        deliver(.fetch, on: callbackQueue, to: completion) { try await self.fetchCare(type, withID: id) }
    }

    /// The three writes of the care calls, each the operation its failures are reported under.
    enum CareWrite {
        case add, update, delete

        var operation: OTFCloudantError.Operation {
            switch self {
            case .add: .add
            case .update: .update
            case .delete: .delete
            }
        }
    }

    /// Adds, updates or deletes `entities` in one transaction, as ``addCare(_:)``, ``updateCare(_:)`` and
    /// ``deleteCare(_:)`` do, with the result delivered to `completion` on `queue`.
    func write<Entity: CareStorable>(
        _ kind: CareWrite, _ entities: [Entity], on queue: DispatchQueue, to completion: OTFCompletion<[Entity]>?
    ) {
        care(kind.operation, on: queue, to: completion) { care in
            switch kind {
            case .add: try await care.add(entities)
            case .update: try await care.update(entities)
            case .delete: try await care.delete(entities)
            }
        }
    }

    /// ``write(_:_:on:to:)`` for one entity, delivering the one version written.
    func write<Entity: CareStorable>(
        _ kind: CareWrite, _ entity: Entity, on queue: DispatchQueue, to completion: OTFCompletion<Entity>?
    ) {
        write(kind, [entity], on: queue) { result in
            completion?(result.flatMap { written in Result { () throws(OTFCloudantError) in try self.one(written) } })
        }
    }
}

/// The care store one drop-in store keeps, and whether the care indexes are known to exist.
final class OTFCareCompanion: Sendable {
    let care: CareStore
    private let indexes = OncePerStore<CarePlugin>()

    init(care: CareStore) { self.care = care }

    /// Creates the care indexes once, unless the store was opened with the care plugin (which made them).
    func prepare() async throws {
        let store = care.store
        try await indexes.once {
            guard !store.options.registry.installedPlugins.contains(CarePlugin.pluginName) else { return }
            let relations = [
                Patient.careRelation, CarePlan.careRelation, Contact.careRelation, CareTask.careRelation,
                HealthKitLinkedTask.careRelation, Outcome.careRelation,
            ]
            let definitions = Set(relations.flatMap { CareIndexes.indexes(relation: $0) })
            for definition in definitions.sorted(by: { $0.name < $1.name }) {
                _ = try await store.createIndex(definition)
            }
        }
    }
}

extension OTFCloudantStore {
    /// The single result of a one-item write.
    func one<Entity: Sendable>(_ written: [Entity]) throws(OTFCloudantError) -> Entity {
        guard let first = written.first else {
            throw .fetchFailed(reason: "The store wrote nothing for the item; report this as a bug.")
        }
        return first
    }
}

/// CareKit's name for the care calls' error: it has the same cases as OTFCloudantStore's, which mapped one to
/// the other one to one (`toOCKStoreError()`).
public typealias OCKStoreError = OTFCloudantError

/// The original's error cases for care operations.
extension OTFCloudantError {
    /// The error as CareKit's `OCKStoreError`: the same value, since the two have the same cases.
    public func toOCKStoreError() -> OCKStoreError { self }
}
