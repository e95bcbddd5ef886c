public import CloudantCore

/// Registers the care entity kinds (CareKit's Patient, CarePlan, Task, Contact, Outcome, Note) with a store.
///
/// ```swift
/// import CloudantCare
/// let registry = try EntityRegistry(plugins: [CarePlugin()])
/// ```
///
/// The care entities themselves arrive with the Care module's own issue; until then the plugin registers
/// no kinds, and says so in ``kindNames``.
public struct CarePlugin: EntityPlugin {
    /// The plugin's registry name.
    public static let pluginName = "org.theraforge.cloudant.care"

    /// The plugin's registry name.
    public var name: String { Self.pluginName }

    /// The kind names this plugin registers, in order.
    public var kindNames: [String] { [] }

    /// Creates the plugin.
    public init() {}

    /// Registers the care kinds.
    public func register(in registry: inout EntityRegistry) throws {}
}
