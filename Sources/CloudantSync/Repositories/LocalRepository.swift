public import CloudantCore
public import CloudantStore
internal import Foundation

/// The store on this device as a ``Repository`` of one entity type.
///
/// ```swift
/// let notes = LocalRepository<Note>(store: store)
/// let open = try await notes.find(try RepositoryCriteria(selector: ["done": false]))
/// ```
public struct LocalRepository<Entity: CloudantEntity>: Repository where Entity.ID: CustomStringConvertible {
    /// The store.
    public let store: DocumentStore

    /// Creates a repository over `store`; `Entity` must be registered with it (or the store must accept
    /// unregistered types).
    public init(store: DocumentStore) {
        self.store = store
    }

    func codec() throws(CloudantError) -> EntityCodec<Entity> {
        do {
            return EntityCodec(kind: try store.options.entityKind(for: Entity.self))
        } catch {
            throw CloudantError.fromStore(error)
        }
    }

    public func find(_ criteria: RepositoryCriteria) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        let codec = try codec()
        do {
            let request = FindRequest(
                selector: try MangoSelector(criteria.selector(kindField: codec.kind.format.kindField, kind: codec.kind.name)),
                sort: criteria.sort, limit: criteria.limit ?? Int(Int32.max), skip: criteria.skip)
            let found = try await store.find(request)
            return answer(try found.docs.map(codec.entity(from:)))
        } catch {
            throw CloudantError.fromStore(error)
        }
    }

    public func findOne(id: Entity.ID) async throws(CloudantError) -> RepositoryResult<Entity?> {
        do {
            let found = try await store.get(Entity.self, ids: [id])
            return answer(found).map(\.first)
        } catch let error as CloudantError where error.code == .notFound {
            return RepositoryResult(value: nil, origin: .local, metadata: [.local: RepositoryMetadata(date: store.options.now())])
        } catch {
            throw CloudantError.fromStore(error)
        }
    }

    public func store(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        do { return answer(try await store.add(models)) } catch { throw CloudantError.fromStore(error) }
    }

    public func update(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        do { return answer(try await store.update(models)) } catch { throw CloudantError.fromStore(error) }
    }

    public func remove(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        do { return answer(try await store.delete(models)) } catch { throw CloudantError.fromStore(error) }
    }

    public func storeOrUpdate(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]> {
        let prepared = try await withCurrentRevisions(models)
        do {
            let fresh = prepared.filter { $0.revId == nil }
            let existing = prepared.filter { $0.revId != nil }
            let created = fresh.isEmpty ? [] : try await store.add(fresh)
            let updated = existing.isEmpty ? [] : try await store.update(existing)
            return answer(Self.inOrder(models, created + updated))
        } catch {
            throw CloudantError.fromStore(error)
        }
    }

    /// The models, each without a `revId` given the store's current winner when the document exists.
    func withCurrentRevisions(_ models: [Entity]) async throws(CloudantError) -> [Entity] {
        var result = models
        for index in result.indices where result[index].revId == nil {
            do {
                let current = try await store.document(id: result[index].id.description)
                result[index].revId = current["_rev"]?.stringValue
            } catch let error as CloudantError where error.code == .notFound {
                continue  // New (or deleted: a write without `_rev` revives it).
            } catch {
                throw CloudantError.fromStore(error)
            }
        }
        return result
    }

    /// `written` reordered as `models` were given.
    static func inOrder(_ models: [Entity], _ written: [Entity]) -> [Entity] {
        var byID: [String: Entity] = [:]
        for entity in written { byID[entity.id.description] = entity }
        return models.compactMap { byID[$0.id.description] }
    }

    private func answer<Value: Sendable>(_ value: Value) -> RepositoryResult<Value> where Value: Collection, Value.Element == Entity {
        return RepositoryResult(
            value: value, origin: .local, metadata: [.local: RepositoryMetadata(revisions: value.revisionsByID(), date: store.options.now())])
    }
}
