public import CloudantCore

/// Registers the care entity kinds (CareKit's Patient, CarePlan, Contact, Task, HealthKit task and Outcome)
/// with a store, with the indexes their queries use.
///
/// ```swift
/// import CloudantCare
/// let registry = try EntityRegistry(plugins: [CarePlugin()])
/// let store = try DocumentStore.open(name: "care", options: StoreOptions(registry: registry))
/// let care = CareStore(store: store)
/// ```
///
/// Notes are not a kind of their own: as in CareKit they live inside the entity they annotate.
public struct CarePlugin: EntityPlugin {
    /// The plugin's registry name.
    public static let pluginName = "org.theraforge.cloudant.care"

    /// The plugin's registry name.
    public var name: String { Self.pluginName }

    /// The kind names this plugin registers, in order (also the order conflicts are resolved in).
    public var kindNames: [String] { Self.builtInKindNames }

    /// The built-in kind names, parents before the kinds that point at them.
    public static let builtInKindNames = [
        Patient.careKindName, CarePlan.careKindName, Contact.careKindName, CareTask.careKindName,
        HealthKitLinkedTask.careKindName, Outcome.careKindName,
    ]

    /// Creates the plugin.
    public init() {}

    /// Registers the care kinds.
    /// - Throws: `CloudantError.Code.duplicateEntityType` or
    ///   `CloudantError.Code.duplicateKindName` when another plugin registered one of them.
    public func register(in registry: inout EntityRegistry) throws {
        try registry.register(Self.kind(for: Patient.self))
        try registry.register(Self.kind(for: CarePlan.self))
        try registry.register(Self.kind(for: Contact.self))
        try registry.register(Self.kind(for: CareTask.self))
        try registry.register(Self.kind(for: HealthKitLinkedTask.self))
        try registry.register(Self.kind(for: Outcome.self))
    }

    /// The registry entry of a care kind, built-in or custom: its kind name and the care indexes it needs.
    public static func kind<Entity: CareStorable>(for type: Entity.Type) -> EntityKind<Entity> {
        EntityKind(type, name: Entity.careKindName, indexes: CareIndexes.indexes(relation: Entity.careRelation))
    }
}
