public import CloudantCore

/// Registers the health sample kinds (quantity, category, correlation, workout, workout route, CDA document)
/// with a store.
///
/// ```swift
/// import CloudantHealth
/// let registry = try EntityRegistry(plugins: [HealthPlugin()])
/// ```
///
/// The sample kinds themselves arrive with the Health module's own issue; until then the plugin registers
/// no kinds, and says so in ``kindNames``.
public struct HealthPlugin: EntityPlugin {
    /// The plugin's registry name.
    public static let pluginName = "org.theraforge.cloudant.health"

    /// The plugin's registry name.
    public var name: String { Self.pluginName }

    /// The kind names this plugin registers, in order.
    public var kindNames: [String] { [] }

    /// Creates the plugin.
    public init() {}

    /// Registers the health kinds.
    public func register(in registry: inout EntityRegistry) throws {}
}
