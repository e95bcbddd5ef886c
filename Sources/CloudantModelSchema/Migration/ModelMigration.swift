public import CloudantBase

/// What changes between two versions of a model, per entity, and how to rewrite a document written under
/// the older one (Core Data's lightweight migration): a renamed property moves with its `CDTISMeta_`
/// member, a removed one is dropped, an added attribute gets its default.
///
/// ```swift
/// let migration = ModelMigration(from: model.versions[0], to: model.current)
/// migration.changes["Recipe"]?.renamed   // ["title": "name"]
/// var body = oldDocument
/// migration.migrate(&body)
/// ```
public struct ModelMigration: Sendable, Hashable {
    /// The changes of one entity.
    public struct EntityChanges: Sendable, Hashable {
        /// Old name to new name.
        public var renamed: [String: String] = [:]
        /// Properties the new version no longer has.
        public var removed: [String] = []
        /// Properties the new version adds.
        public var added: [String] = []

        /// Whether documents of the entity need rewriting.
        public var isEmpty: Bool { renamed.isEmpty && removed.isEmpty && added.isEmpty }
    }

    /// The older version.
    public let source: ModelVersion
    /// The newer version.
    public let destination: ModelVersion
    /// Changes per entity name (entities of the newer version that the older one had).
    public let changes: [String: EntityChanges]

    /// Compares two versions.
    public init(from source: ModelVersion, to destination: ModelVersion) {
        self.source = source
        self.destination = destination
        var changes: [String: EntityChanges] = [:]
        for entity in destination.entities {
            guard let old = source.entity(named: entity.name) else { continue }
            var entityChanges = EntityChanges()
            var kept: Set<String> = []
            for property in entity.properties {
                if let previous = property.renamedFrom, old.property(named: previous) != nil, previous != property.name {
                    entityChanges.renamed[previous] = property.name
                    kept.insert(previous)
                } else if old.property(named: property.name) != nil {
                    kept.insert(property.name)
                } else {
                    entityChanges.added.append(property.name)
                }
            }
            entityChanges.removed = old.properties.map(\.name).filter { !kept.contains($0) }
            if !entityChanges.isEmpty { changes[entity.name] = entityChanges }
        }
        self.changes = changes
    }

    /// The migrations from `source` to `destination` through every version between them in `model`.
    public static func path(in model: ObjectModel, from source: ModelVersion, to destination: ModelVersion) -> [ModelMigration] {
        let chain = model.versions.filter { $0.version >= source.version && $0.version <= destination.version }
        return zip(chain, chain.dropFirst()).map { ModelMigration(from: $0, to: $1) }
    }

    /// Rewrites a document body written under ``source`` for ``destination``; returns whether it changed.
    @discardableResult
    public func migrate(_ body: inout JSONObject) -> Bool {
        guard let name = body[IncrementalStore.entityNameKey]?.stringValue, let entityChanges = changes[name],
            let entity = destination.entity(named: name)
        else { return false }
        for (old, new) in entityChanges.renamed {
            let value = body.removeValue(forKey: old)
            let meta = body.removeValue(forKey: IncrementalStore.metaKey(old))
            body[new] = value
            body[IncrementalStore.metaKey(new)] = meta
        }
        for removed in entityChanges.removed {
            body[removed] = nil
            body[IncrementalStore.metaKey(removed)] = nil
        }
        for added in entityChanges.added {
            guard body[added] == nil, let property = entity.property(named: added) else { continue }
            if property.type == .relationToMany {
                IncrementalStoreCoding.writeToMany([], for: property, into: &body)
            } else if let value = AttributeDefaults.value(for: property) {
                IncrementalStoreCoding.write(value, for: property, into: &body)
            }
        }
        return true
    }
}
