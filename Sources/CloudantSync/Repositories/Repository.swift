public import CloudantCore

/// One CRUD API over a source of entities, as Evocation's `Repository`: the store on this device
/// (``LocalRepository``), a CouchDB-compatible database over HTTP (``RemoteRepository``), or both behind
/// per-action strategies (``RepositoryProxy``).
///
/// Every answer is a ``RepositoryResult``: the data, where it came from, and each source's revisions.
///
/// ```swift
/// let notes = RepositoryProxy<Note>(store: store, remote: try RemoteDatabase(url: serverURL))
/// let saved = try await notes.storeOne(Note(id: "n1", text: "Call the clinic"))
/// let found = try await notes.find(.where("text", equals: "Call the clinic"))
/// print(found.origin)   // .local, or .remote, or .localAfterRemoteFailed …
/// ```
public protocol Repository<Entity>: Sendable {
    /// The entity type the repository reads and writes.
    associatedtype Entity: CloudantEntity where Entity.ID: CustomStringConvertible

    /// Every entity of the type that `criteria` matches, in its sort order.
    /// - Throws: `CloudantError`, as the source that failed reports it (`CloudantError.repositorySource` says which)..
    func find(_ criteria: RepositoryCriteria) async throws(CloudantError) -> RepositoryResult<[Entity]>

    /// The entity with this id, or `nil` when the source has no live one.
    /// - Throws: `CloudantError`.
    func findOne(id: Entity.ID) async throws(CloudantError) -> RepositoryResult<Entity?>

    /// Creates entities (they must not exist yet).
    /// - Throws: `CloudantError` in the category `conflict` when one exists.
    func store(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]>

    /// Edits entities; each carries the revision it was read at (`revId`).
    /// - Throws: `CloudantError` in the category `conflict` when a revision is stale.
    func update(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]>

    /// Deletes entities; each carries the revision it was read at.
    /// - Throws: `CloudantError` in the category `conflict` when a revision is stale.
    func remove(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]>

    /// Creates the entities that do not exist and edits those that do. An entity without `revId` that
    /// exists is written over the current revision (an upsert: last writer wins).
    /// - Throws: `CloudantError`.
    func storeOrUpdate(_ models: [Entity]) async throws(CloudantError) -> RepositoryResult<[Entity]>
}

extension Repository {
    /// The first entity `criteria` matches, in its sort order, or `nil`.
    /// - Throws: `CloudantError`.
    public func findOne(_ criteria: RepositoryCriteria) async throws(CloudantError) -> RepositoryResult<Entity?> {
        var first = criteria
        first.limit = 1
        return try await find(first).map(\.first)
    }

    /// Every entity of the type.
    /// - Throws: `CloudantError`.
    public func findAll() async throws(CloudantError) -> RepositoryResult<[Entity]> {
        try await find(.all)
    }

    /// Creates one entity.
    /// - Throws: as ``store(_:)``.
    public func storeOne(_ model: Entity) async throws(CloudantError) -> RepositoryResult<Entity> {
        try await store([model]).single()
    }

    /// Edits one entity.
    /// - Throws: as ``update(_:)``.
    public func updateOne(_ model: Entity) async throws(CloudantError) -> RepositoryResult<Entity> {
        try await update([model]).single()
    }

    /// Deletes one entity.
    /// - Throws: as ``remove(_:)``.
    public func removeOne(_ model: Entity) async throws(CloudantError) -> RepositoryResult<Entity> {
        try await remove([model]).single()
    }
}

extension Sequence {
    /// Each entity's revision by document id (entities without one are left out): what a source's
    /// ``RepositoryMetadata`` records.
    func revisionsByID<Entity: CloudantEntity>() -> [String: String] where Element == Entity, Entity.ID: CustomStringConvertible {
        Dictionary(compactMap { entity in entity.revId.map { (entity.id.description, $0) } }, uniquingKeysWith: { first, _ in first })
    }
}
