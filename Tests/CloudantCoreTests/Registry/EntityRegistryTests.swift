import CloudantCore
import Testing

private struct Medication: Codable, Sendable, Identifiable {
    var id: String
    var name: String
}

private struct Prescription: Codable, Sendable, Identifiable {
    var id: String
    var medicationID: String
}

private struct ClinicPlugin: EntityPlugin {
    let name = "com.example.clinic"
    func register(in registry: inout EntityRegistry) throws {
        try registry.register(
            EntityKind(
                Medication.self, schemaVersion: 2,
                indexes: [IndexDefinition(name: "medication-name", fields: [.ascending("name")])],
                validate: { medication in
                    if medication.name.isEmpty { throw CloudantError(.invalidInput, "A medication needs a name.") }
                },
                upgrade: { body, storedVersion in
                    if storedVersion < 2, let title = body.removeValue(forKey: "title") { body["name"] = title }
                }))
        try registry.register(EntityKind(Prescription.self))
    }
}

/// A plugin that registers one good kind and then clashes, to prove installation is all or nothing.
private struct HalfBrokenPlugin: EntityPlugin {
    let name = "com.example.half-broken"
    func register(in registry: inout EntityRegistry) throws {
        try registry.register(EntityKind(Prescription.self, name: "Refill"))
        try registry.register(EntityKind(Medication.self))
    }
}

@Suite("Entity registry")
struct EntityRegistryTests {
    @Test func pluginKindsAreFoundByTypeAndByStoredName() throws {
        let registry = try EntityRegistry(plugins: [ClinicPlugin()])
        let medication = try #require(registry.kind(for: Medication.self))
        #expect(medication.name == "Medication")
        #expect(medication.schemaVersion == 2)
        #expect(medication.indexes.map(\.name) == ["medication-name"])
        #expect(registry.kind(named: "Prescription")?.entityType == Prescription.self)
        #expect(registry.kind(named: "Medication")?.pluginName == "com.example.clinic")
        #expect(registry.kinds.map(\.name) == ["Medication", "Prescription"])
        #expect(registry.installedPlugins == ["com.example.clinic"])
    }

    @Test func registeringOneTypeTwiceIsADuplicateEntityTypeError() throws {
        var registry = try EntityRegistry(plugins: [ClinicPlugin()])
        let error = #expect(throws: CloudantError.self) {
            try registry.register(EntityKind(Medication.self, name: "Drug"))
        }
        #expect(error?.code == .duplicateEntityType)
        #expect(error?.context.kind == "Drug")
        #expect(error?.message.contains("com.example.clinic") == true)
        #expect(registry.kind(named: "Drug") == nil)
    }

    @Test func twoTypesUnderOneKindNameIsADuplicateKindNameError() throws {
        var registry = EntityRegistry()
        try registry.register(EntityKind(Medication.self, name: "Item"))
        let error = #expect(throws: CloudantError.self) {
            try registry.register(EntityKind(Prescription.self, name: "Item"))
        }
        #expect(error?.code == .duplicateKindName)
        #expect(registry.kind(for: Prescription.self) == nil)
    }

    @Test func installingAPluginTwiceIsADuplicatePluginError() throws {
        var registry = try EntityRegistry(plugins: [ClinicPlugin()])
        let error = #expect(throws: CloudantError.self) { try registry.install(ClinicPlugin()) }
        #expect(error?.code == .duplicatePlugin)
    }

    @Test func aPluginThatClashesHalfwayLeavesTheRegistryUnchanged() throws {
        var registry = EntityRegistry()
        try registry.register(EntityKind(Medication.self))
        #expect(throws: CloudantError.self) { try registry.install(HalfBrokenPlugin()) }
        #expect(registry.kind(named: "Refill") == nil)
        #expect(registry.kinds.map(\.name) == ["Medication"])
        #expect(registry.installedPlugins.isEmpty)
    }

    @Test func replaceOverridesAKindButMustKeepItsName() throws {
        var registry = try EntityRegistry(plugins: [ClinicPlugin()])
        try registry.replace(EntityKind(Medication.self, schemaVersion: 3))
        #expect(registry.kind(for: Medication.self)?.schemaVersion == 3)
        #expect(registry.kind(named: "Medication")?.pluginName == "com.example.clinic")

        let renamed = #expect(throws: CloudantError.self) {
            try registry.replace(EntityKind(Medication.self, name: "Drug"))
        }
        #expect(renamed?.code == .invalidInput)

        var empty = EntityRegistry()
        let unknown = #expect(throws: CloudantError.self) { try empty.replace(EntityKind(Medication.self)) }
        #expect(unknown?.code == .unknownEntityType)
    }

    @Test func reservedOrEmptyKindNamesAndZeroSchemaVersionsAreRejected() {
        var registry = EntityRegistry()
        for kind in [EntityKind(Medication.self, name: "_design"), EntityKind(Medication.self, name: "")] {
            let error = #expect(throws: CloudantError.self) { try registry.register(kind) }
            #expect(error?.code == .invalidInput)
        }
        let error = #expect(throws: CloudantError.self) {
            try registry.register(EntityKind(Medication.self, schemaVersion: 0))
        }
        #expect(error?.context.field == "schemaVersion")
        #expect(registry.kinds.isEmpty)
    }

    @Test func validationAndUpgradeHooksRunThroughTheErasedKind() throws {
        let registry = try EntityRegistry(plugins: [ClinicPlugin()])
        let kind = try #require(registry.kind(named: "Medication"))
        #expect(throws: CloudantError.self) { try kind.validate(Medication(id: "m1", name: "")) }
        try kind.validate(Medication(id: "m1", name: "Metformin"))

        var body: JSONObject = ["_id": "m1", "title": "Metformin"]
        try kind.upgrade(&body, 1)
        #expect(body == ["_id": "m1", "name": "Metformin"])
    }

    @Test func requireKindNamesTheUnregisteredType() {
        let registry = EntityRegistry()
        let error = #expect(throws: CloudantError.self) { try registry.requireKind(for: Medication.self) }
        #expect(error?.code == .unknownEntityType)
        #expect(error?.message.contains("Medication") == true)
    }
}
