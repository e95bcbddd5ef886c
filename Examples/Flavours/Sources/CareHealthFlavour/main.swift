import CloudantCareHealth

// CloudantCareHealth: everything. One API: the registry with both built-in plugins.
let registry = try EntityRegistry.careHealth()
print("CloudantCareHealth: \(registry.installedPlugins.joined(separator: ", "))")
