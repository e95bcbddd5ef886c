import CloudantHealth

// CloudantHealth: the store plus the health samples. One API: the health plugin (and its libxml2).
let registry = try EntityRegistry(plugins: [HealthPlugin()])
print("CloudantHealth: \(registry.installedPlugins.joined(separator: ", ")), libxml2 \(XMLRuntime.libxml2Version)")
