import CloudantCareModule
import CloudantCore
import CloudantStore
import Foundation
import Testing

/// ParseCareKit's `CancerPatient`: a kind built on Patient, registered through the plugin registry and
/// stored and versioned like the built-in kinds, its extra fields in `userInfo`.
private struct CancerPatient: CareStorable {
    static let careKindName = "cancerPatient"
    var patient: Patient

    var versioned: VersionedFields {
        get { patient.versioned }
        set { patient.versioned = newValue }
    }

    init(patient: Patient) { self.patient = patient }
    init(from decoder: any Decoder) throws { patient = try Patient(from: decoder) }
    func encode(to encoder: any Encoder) throws { try patient.encode(to: encoder) }
}

@Suite("Custom care kinds in the store")
struct CustomKindStoreTests {
    @Test func aRegisteredCustomKindIsStoredVersionedAndQueriedApartFromPatients() async throws {
        var registry = try EntityRegistry(plugins: [CarePlugin()])
        try registry.register(CarePlugin.kind(for: CancerPatient.self))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("care-custom-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try DocumentStore.open(
            name: "custom", fileURL: folder.appendingPathComponent("custom.sqlite"),
            options: StoreOptions(registry: registry))
        let care = CareStore(store: store, now: { Date(timeIntervalSinceReferenceDate: 0) })
        var patient = Patient(id: "jane", name: PersonNameComponents(), uuid: testUUID(1), effectiveDate: Date(timeIntervalSinceReferenceDate: 0))
        patient.userInfo = ["primaryCondition": "melanoma"]
        let stored = try await care.add([CancerPatient(patient: patient)])[0]
        var edited = stored
        edited.patient.userInfo = ["primaryCondition": "melanoma", "comorbidities": "asthma"]
        try await care.update([edited])
        let tips = try await care.history(CancerPatient.self, ids: ["jane"]).tips(id: "jane")
        #expect(tips.map { $0.patient.userInfo?["comorbidities"] } == ["asthma"])
        #expect(try await care.fetch(Patient.self).isEmpty)
        #expect(try await care.fetch(CancerPatient.self, query: CareQuery(id: "jane")).count == 2)
    }
}
