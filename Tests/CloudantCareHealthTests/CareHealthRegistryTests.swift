import CloudantCareHealth
import Testing

private struct Allergy: Codable, Sendable, Identifiable {
    var id: String
    var substance: String
}

private struct AllergyPlugin: EntityPlugin {
    let name = "com.example.allergies"
    func register(in registry: inout EntityRegistry) throws {
        try registry.register(EntityKind(Allergy.self, indexes: [IndexDefinition(name: "by-substance", fields: [.ascending("substance")])]))
    }
}

/// A user plugin that claims the Care plugin's name.
private struct Impostor: EntityPlugin {
    let name = CarePlugin.pluginName
    func register(in registry: inout EntityRegistry) throws {}
}

@Suite("Care and health registry")
struct CareHealthRegistryTests {
    @Test func aUserPluginRegistersNextToTheBuiltIns() throws {
        let registry = try EntityRegistry.careHealth(adding: [AllergyPlugin()])
        #expect(registry.installedPlugins == [CarePlugin.pluginName, HealthPlugin.pluginName, "com.example.allergies"])
        #expect(registry.kind(for: Allergy.self)?.indexes.map(\.name) == ["by-substance"])
        #expect(registry.kind(named: "Allergy")?.pluginName == "com.example.allergies")
    }

    @Test func aUserPluginCannotTakeABuiltInPluginsName() {
        let error = #expect(throws: CloudantError.self) { try EntityRegistry.careHealth(adding: [Impostor()]) }
        #expect(error?.code == .duplicatePlugin)
    }

    @Test func aUserPluginInstalledTwiceIsRejected() {
        let error = #expect(throws: CloudantError.self) {
            try EntityRegistry.careHealth(adding: [AllergyPlugin(), AllergyPlugin()])
        }
        #expect(error?.code == .duplicatePlugin)
    }
}
