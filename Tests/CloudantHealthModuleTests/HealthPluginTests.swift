import CloudantCore
import CloudantHealthModule
import Testing

@Suite("Health plugin")
struct HealthPluginTests {
    @Test func installsUnderItsNameAndRegistersExactlyTheKindsItLists() throws {
        let registry = try EntityRegistry(plugins: [HealthPlugin()])
        #expect(registry.installedPlugins == [HealthPlugin.pluginName])
        #expect(registry.kinds.map(\.name) == HealthPlugin().kindNames)
    }

    @Test func reportsTheLibxml2VersionLoadedAtRunTime() {
        let parts = XMLRuntime.libxml2Version.split(separator: ".").compactMap { Int($0) }
        #expect(parts.count == 3)
        #expect(parts.first == 2)
    }
}
