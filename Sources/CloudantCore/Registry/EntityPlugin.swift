/// A bundle of entity kinds a module (or an app) adds to the store.
///
/// The Care and Health modules each ship one (`CarePlugin`, `HealthPlugin`); apps write their own the same
/// way, and nothing central lists them:
///
/// ```swift
/// struct ClinicPlugin: EntityPlugin {
///     let name = "com.example.clinic"
///     func register(in registry: inout EntityRegistry) throws {
///         try registry.register(EntityKind(Medication.self))
///         try registry.register(EntityKind(Prescription.self, schemaVersion: 3))
///     }
/// }
/// let registry = try EntityRegistry(plugins: [CarePlugin(), ClinicPlugin()])
/// ```
public protocol EntityPlugin: Sendable {
    /// A stable, unique name (reverse-DNS for apps); installing two plugins with one name is an error.
    var name: String { get }

    /// Registers the plugin's kinds.
    /// - Throws: `CloudantError` with `CloudantError.Code.duplicateEntityType` or
    ///   `CloudantError.Code.duplicateKindName` when a kind clashes with one already registered.
    func register(in registry: inout EntityRegistry) throws
}
