/// The entity kinds a store knows, keyed by Swift type and by the kind name stored in documents.
///
/// A store is opened with a registry; typed calls (`store.add(tasks)`) look their kind up by type, and
/// documents read back are matched to a kind by name.
///
/// ## Precedence
/// Registration order never decides anything silently:
/// - registering a type that is already registered throws `CloudantError.Code.duplicateEntityType`;
/// - registering a second type under a kind name already taken throws `CloudantError.Code.duplicateKindName`;
/// - installing a plugin whose name is already installed throws `CloudantError.Code.duplicatePlugin`.
///
/// The one way to override a kind (to tighten a built-in's validation, say) is ``replace(_:)``, which must
/// name a type and kind name that are already registered together; the last replacement wins.
///
/// ```swift
/// var registry = try EntityRegistry(plugins: [CarePlugin()])
/// try registry.register(EntityKind(Medication.self))
/// ```
public struct EntityRegistry: Sendable {
    private var kindsByType: [ObjectIdentifier: AnyEntityKind] = [:]
    private var typesByName: [String: ObjectIdentifier] = [:]
    private var order: [ObjectIdentifier] = []
    private var pluginNames: [String] = []
    private var installingPlugin: String?

    /// Creates an empty registry.
    public init() {}

    /// Creates a registry with the kinds of `plugins`, installed in order.
    /// - Throws: `CloudantError` when two plugins clash (see Precedence).
    public init(plugins: [any EntityPlugin]) throws {
        for plugin in plugins { try install(plugin) }
    }

    /// Every registered kind, in registration order.
    public var kinds: [AnyEntityKind] { order.compactMap { kindsByType[$0] } }

    /// The names of the installed plugins, in installation order.
    public var installedPlugins: [String] { pluginNames }

    /// Installs a plugin's kinds. The registry is unchanged when the plugin throws.
    /// - Throws: `CloudantError.Code.duplicatePlugin` or a clash from one of its kinds.
    public mutating func install(_ plugin: any EntityPlugin) throws {
        guard !pluginNames.contains(plugin.name) else {
            throw CloudantError(
                .duplicatePlugin, "The plugin '\(plugin.name)' is already installed; install each plugin once.")
        }
        var staged = self
        staged.installingPlugin = plugin.name
        try plugin.register(in: &staged)
        staged.installingPlugin = nil
        staged.pluginNames.append(plugin.name)
        self = staged
    }

    /// Registers one entity kind.
    /// - Throws: `CloudantError.Code.duplicateEntityType` if the type is registered,
    ///   `CloudantError.Code.duplicateKindName` if another type has the kind name,
    ///   `CloudantError.Code.invalidInput` if the name is empty or starts with `_` (reserved by CouchDB),
    ///   or the schema version is below 1.
    public mutating func register<Entity>(_ kind: EntityKind<Entity>) throws {
        let key = ObjectIdentifier(Entity.self)
        try Self.checkWellFormed(kind)
        if let existing = kindsByType[key] {
            throw CloudantError(
                .duplicateEntityType,
                "\(Entity.self) is already registered as '\(existing.name)'"
                    + Self.by(existing.pluginName) + "; register each type once, or use replace(_:) to override.",
                context: .init(kind: kind.name))
        }
        if let holder = typesByName[kind.name], let existing = kindsByType[holder] {
            throw CloudantError(
                .duplicateKindName,
                "The kind name '\(kind.name)' is already used by \(existing.entityType)" + Self.by(existing.pluginName)
                    + "; give \(Entity.self) a different name.",
                context: .init(kind: kind.name))
        }
        kindsByType[key] = AnyEntityKind(kind, pluginName: installingPlugin)
        typesByName[kind.name] = key
        order.append(key)
    }

    /// Replaces a registered kind with a new description of the same type and kind name.
    /// - Throws: `CloudantError.Code.unknownEntityType` if the type is not registered,
    ///   `CloudantError.Code.invalidInput` if the kind name differs (renaming a kind would orphan its documents).
    public mutating func replace<Entity>(_ kind: EntityKind<Entity>) throws {
        let key = ObjectIdentifier(Entity.self)
        try Self.checkWellFormed(kind)
        guard let existing = kindsByType[key] else {
            throw CloudantError(
                .unknownEntityType, "\(Entity.self) is not registered; register(_:) it instead of replacing it.",
                context: .init(kind: kind.name))
        }
        guard existing.name == kind.name else {
            throw CloudantError(
                .invalidInput,
                "A replacement must keep the kind name '\(existing.name)'; stored documents are found by it.",
                context: .init(kind: kind.name, field: "name"))
        }
        kindsByType[key] = AnyEntityKind(kind, pluginName: installingPlugin ?? existing.pluginName)
    }

    /// The typed description registered for `type`, if any.
    public func kind<Entity>(for type: Entity.Type) -> EntityKind<Entity>? {
        kindsByType[ObjectIdentifier(type)]?.typed(as: type)
    }

    /// The description registered for `type`.
    /// - Throws: `CloudantError.Code.unknownEntityType` naming the type when nothing registered it.
    public func requireKind<Entity>(for type: Entity.Type) throws -> EntityKind<Entity> {
        guard let kind = kind(for: type) else {
            throw CloudantError(
                .unknownEntityType,
                "\(type) is not a registered entity kind; register it with EntityRegistry.register(_:) or a plugin "
                    + "before opening the store.")
        }
        return kind
    }

    /// The kind stored under `name`, if any.
    public func kind(named name: String) -> AnyEntityKind? {
        typesByName[name].flatMap { kindsByType[$0] }
    }

    private static func checkWellFormed<Entity>(_ kind: EntityKind<Entity>) throws {
        guard !kind.name.isEmpty, !kind.name.hasPrefix("_") else {
            throw CloudantError(
                .invalidInput, "A kind name must be non-empty and must not start with '_' (reserved by CouchDB).",
                context: .init(kind: kind.name, field: "name"))
        }
        guard kind.schemaVersion >= 1 else {
            throw CloudantError(
                .invalidInput, "Schema versions start at 1.", context: .init(kind: kind.name, field: "schemaVersion"))
        }
        for projection in kind.projections {
            do {
                try projection.validate()
            } catch let error as CloudantError {
                throw error.adding { $0.kind = kind.name }
            }
        }
    }

    private static func by(_ pluginName: String?) -> String {
        pluginName.map { " by plugin '\($0)'" } ?? ""
    }
}
