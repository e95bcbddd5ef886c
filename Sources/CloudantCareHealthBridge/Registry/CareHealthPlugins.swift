public import CloudantCore
internal import CloudantCareModule
internal import CloudantHealthModule

/// Registries with the care and health kinds together.
extension EntityRegistry {
    /// A registry with the care and health kinds installed (care first), followed by `plugins`.
    ///
    /// ```swift
    /// import CloudantCareHealth
    /// let registry = try EntityRegistry.careHealth(adding: [ClinicPlugin()])
    /// ```
    /// - Throws: `CloudantError` when one of `plugins` clashes with a built-in kind.
    public static func careHealth(adding plugins: [any EntityPlugin] = []) throws -> EntityRegistry {
        try EntityRegistry(plugins: [CarePlugin(), HealthPlugin()] + plugins)
    }
}
