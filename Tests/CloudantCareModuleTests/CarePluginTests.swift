import CloudantCareModule
import CloudantCore
import Testing

@Suite("Care plugin")
struct CarePluginTests {
    @Test func installsUnderItsNameAndRegistersExactlyTheKindsItLists() throws {
        let registry = try EntityRegistry(plugins: [CarePlugin()])
        #expect(registry.installedPlugins == [CarePlugin.pluginName])
        #expect(registry.kinds.map(\.name) == CarePlugin().kindNames)
    }

    @Test func installingItTwiceIsRejected() throws {
        var registry = try EntityRegistry(plugins: [CarePlugin()])
        let error = #expect(throws: CloudantError.self) { try registry.install(CarePlugin()) }
        #expect(error?.code == .duplicatePlugin)
    }
}
