import CloudantCareModule
import CloudantCore
import Foundation
import Testing

// ParseCareKit's README examples: custom kinds built on the standard Patient that keep their extra
// fields in `userInfo`, so CareKit (and this store) read them as plain patients.

private let primaryConditionKey = "CustomPatientUserInfoPrimaryConditionKey"
private let comorbiditiesKey = "CustomPatientUserInfoComorbiditiesKey"
private let doctorTypeKey = "CustomDoctorUserInfoTypeKey"
private let customClassKey = "className"

/// ParseCareKit's pattern for every custom kind: a standard `Patient` underneath, whose versioned fields and
/// flat JSON are the kind's own, so CareKit (and this store) read it as a plain patient.
private protocol PatientBackedEntity: VersionedEntity {
    var patient: Patient { get set }
    init(storedPatient: Patient)
}

extension PatientBackedEntity {
    var versioned: VersionedFields {
        get { patient.versioned }
        set { patient.versioned = newValue }
    }

    init(from decoder: any Decoder) throws { self.init(storedPatient: try Patient(from: decoder)) }
    func encode(to encoder: any Encoder) throws { try patient.encode(to: encoder) }
}

/// ParseCareKit's `CancerPatient`: a patient with a primary condition and comorbidities.
private struct CancerPatient: PatientBackedEntity {
    var patient: Patient

    var primaryCondition: String? {
        get { patient.userInfo?[primaryConditionKey] }
        set { patient.userInfo = patient.userInfo.setting(primaryConditionKey, to: newValue) }
    }

    var comorbidities: String? {
        get { patient.userInfo?[comorbiditiesKey] }
        set { patient.userInfo = patient.userInfo.setting(comorbiditiesKey, to: newValue) }
    }

    init(patient: Patient) { self.patient = patient }
    init(storedPatient: Patient) { patient = storedPatient }
}

/// ParseCareKit's `Doctor`: stored as a patient, told apart by its class name in `userInfo`.
private struct Doctor: PatientBackedEntity {
    var patient: Patient

    var type: String? {
        get { patient.userInfo?[doctorTypeKey] }
        set { patient.userInfo = patient.userInfo.setting(doctorTypeKey, to: newValue) }
    }

    init(patient: Patient) {
        self.patient = patient
        self.patient.userInfo = patient.userInfo.setting(customClassKey, to: "Doctor")
    }

    init?(reading patient: Patient) {
        guard patient.userInfo?[customClassKey] == "Doctor" else { return nil }
        self.patient = patient
    }

    init(storedPatient: Patient) { patient = storedPatient }
}

extension Optional where Wrapped == [String: String] {
    fileprivate func setting(_ key: String, to value: String?) -> [String: String]? {
        var copy = self ?? [:]
        copy[key] = value
        return copy.isEmpty ? nil : copy
    }
}

@Suite("Custom entities (ParseCareKit examples)")
struct CustomEntityTests {
    private func patient(_ id: String, given: String, family: String, uuid: Int) throws -> Patient {
        Patient(
            id: id, name: PersonNameComponents(givenName: given, familyName: family), uuid: testUUID(uuid),
            effectiveDate: Date(timeIntervalSince1970: 0), timezone: try Zone.utc().timeZone)
    }

    @Test func aCancerPatientsFieldsRoundTripThroughUserInfo() throws {
        var cancerPatient = CancerPatient(patient: try patient("jane", given: "Jane", family: "Doe", uuid: 1))
        cancerPatient.primaryCondition = "Breast cancer"
        cancerPatient.comorbidities = "Diabetes"
        let data = try CloudantJSONCoding.makeEncoder().encode(cancerPatient)

        let decoded = try CloudantJSONCoding.makeDecoder().decode(CancerPatient.self, from: data)
        #expect(decoded == cancerPatient)
        #expect(decoded.primaryCondition == "Breast cancer")
        // A plain reader sees an ordinary patient that keeps the custom values.
        let plain = try CloudantJSONCoding.makeDecoder().decode(Patient.self, from: data)
        #expect(plain.userInfo == [primaryConditionKey: "Breast cancer", comorbiditiesKey: "Diabetes"])
        #expect(plain.name.givenName == "Jane")
    }

    @Test func aDoctorIsAPatientMarkedByItsClassName() throws {
        var doctor = Doctor(patient: try patient("drJohnson", given: "Jane", family: "Johnson", uuid: 2))
        doctor.type = "Cancer"
        doctor.patient.sex = .female
        let data = try CloudantJSONCoding.makeEncoder().encode(doctor)
        let plain = try CloudantJSONCoding.makeDecoder().decode(Patient.self, from: data)
        #expect(plain.userInfo?[customClassKey] == "Doctor")
        #expect(Doctor(reading: plain)?.type == "Cancer")
        #expect(Doctor(reading: try patient("jane", given: "Jane", family: "Doe", uuid: 3)) == nil)
        #expect(plain.sex == .female)
    }

    @Test func customKindsVersionLikeTheStandardOnes() throws {
        var history = VersionHistory<CancerPatient>()
        var first = CancerPatient(patient: try patient("jane", given: "Jane", family: "Doe", uuid: 1))
        first.primaryCondition = "Lymphoma"
        try history.add(first)
        var edit = first
        edit.comorbidities = "Asthma"
        edit.effectiveDate = Date(timeIntervalSince1970: 86_400)
        let second = try history.update(edit, uuid: testUUID(2), now: Date(timeIntervalSince1970: 86_400))
        #expect(second.previousVersionUUIDs == [testUUID(1)])
        #expect(history.inEffect(at: Date(timeIntervalSince1970: 100_000)).map(\.comorbidities) == ["Asthma"])
        #expect(history.inEffect(at: Date(timeIntervalSince1970: 100)).map(\.primaryCondition) == ["Lymphoma"])
    }
}
