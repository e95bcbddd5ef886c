/// Describes one kind of entity the store can hold: how it is named in documents, which schema version
/// the code writes, which indexes queries on it need, how to validate it and how to upgrade documents
/// written by an older version of the code.
///
/// ```swift
/// struct Medication: Codable, Sendable, Identifiable { var id: String; var name: String }
///
/// let medications = EntityKind(Medication.self, name: "Medication", schemaVersion: 2,
///     indexes: [IndexDefinition(name: "medication-name", fields: [.ascending("name")])],
///     validate: { medication in
///         if medication.name.isEmpty { throw CloudantError(.invalidInput, "A medication needs a name.") }
///     },
///     upgrade: { body, storedVersion in
///         if storedVersion < 2 { body["name"] = body.removeValue(forKey: "title") }
///     })
/// ```
public struct EntityKind<Entity: Codable & Sendable>: Sendable {
    /// Checks an entity before it is written; throw a `CloudantError` to reject it.
    public typealias Validation = @Sendable (Entity) throws -> Void
    /// Rewrites a stored body written under `storedVersion` so that it decodes as the current schema.
    public typealias Upgrade = EntityUpgrade

    /// The kind name written into every document of this kind (the original's `entityType`).
    public let name: String
    /// The schema version the current code writes; documents with a lower version are upgraded on read.
    public let schemaVersion: Int
    /// The indexes queries on this kind need; the store creates them when it opens.
    public let indexes: [IndexDefinition]
    /// Typed column copies of this kind's documents that readers scan without parsing bodies; the store
    /// creates and fills them when it opens (see ``ColumnProjection``).
    public let projections: [ColumnProjection]
    /// Checks an entity before it is written.
    public let validate: Validation
    /// Upgrades documents written by an older schema version.
    public let upgrade: Upgrade
    /// How the kind's documents name it (``EntityDocumentFormat/standard`` unless the entity writes the
    /// Core Data bridge's layout itself).
    public let format: EntityDocumentFormat

    /// Describes an entity kind.
    /// - Parameters:
    ///   - type: The `Codable` type stored.
    ///   - name: The kind name stored in documents; defaults to the type's name. Keep it stable: it is data.
    ///   - schemaVersion: The version the current code writes (starts at 1).
    ///   - indexes: Indexes queries on this kind need.
    ///   - projections: Column projections readers of this kind scan (none by default).
    ///   - validate: Checks an entity before it is written; accepts everything by default.
    ///   - upgrade: Upgrades older documents; leaves them unchanged by default.
    ///   - format: The document layout; ``EntityDocumentFormat/standard`` by default.
    public init(
        _ type: Entity.Type, name: String? = nil, schemaVersion: Int = 1, indexes: [IndexDefinition] = [],
        projections: [ColumnProjection] = [], validate: @escaping Validation = { _ in }, upgrade: @escaping Upgrade = { _, _ in },
        format: EntityDocumentFormat = .standard
    ) {
        self.name = name ?? String(describing: type)
        self.schemaVersion = schemaVersion
        self.indexes = indexes
        self.projections = projections
        self.validate = validate
        self.upgrade = upgrade
        self.format = format
    }
}

/// Rewrites a stored document body written under `storedVersion` so that it decodes as the current schema.
public typealias EntityUpgrade = @Sendable (_ body: inout JSONObject, _ storedVersion: Int) throws -> Void

/// An ``EntityKind`` with its entity type erased, as the registry keeps it.
public struct AnyEntityKind: Sendable {
    /// The registered Swift type.
    public let entityType: any (Codable & Sendable).Type
    /// The kind name stored in documents.
    public let name: String
    /// The schema version the current code writes.
    public let schemaVersion: Int
    /// The indexes queries on this kind need.
    public let indexes: [IndexDefinition]
    /// The column projections readers of this kind scan.
    public let projections: [ColumnProjection]
    /// The plugin that registered the kind (`nil` when registered directly).
    public let pluginName: String?
    /// Upgrades a stored body written under an older schema version.
    public let upgrade: EntityUpgrade
    /// How the kind's documents name it.
    public let format: EntityDocumentFormat
    private let validateErased: @Sendable (any Sendable) throws -> Void
    private let typed: any Sendable

    init<Entity>(_ kind: EntityKind<Entity>, pluginName: String?) {
        entityType = Entity.self
        name = kind.name
        schemaVersion = kind.schemaVersion
        indexes = kind.indexes
        projections = kind.projections
        self.pluginName = pluginName
        upgrade = kind.upgrade
        format = kind.format
        typed = kind
        validateErased = { value in
            guard let entity = value as? Entity else { return }
            try kind.validate(entity)
        }
    }

    /// The typed description, when `Entity` is the registered type.
    public func typed<Entity>(as type: Entity.Type) -> EntityKind<Entity>? {
        typed as? EntityKind<Entity>
    }

    /// Runs the kind's validation on `entity` (which must be of the registered type).
    public func validate(_ entity: any Sendable) throws {
        try validateErased(entity)
    }
}

