import CloudantCare

// CloudantCare: the store plus the care entities. One API: the care plugin.
let registry = try EntityRegistry(plugins: [CarePlugin()])
print("CloudantCare: \(registry.installedPlugins.joined(separator: ", "))")
