public import CloudantCareModule
internal import CloudantCore
public import CloudantOnly
internal import CloudantStore
public import Dispatch

/// CareKit's names for patients on the drop-in store (`fetchPatients`, `addPatient`, `updatePatients`, …), singular
/// and plural, async and with callbacks, as the original's `OCKStoreProtocol` conformance offered them. Each is
/// one line over the generic care calls; results carry `OTFCloudantError` (CareKit's
/// `OCKStoreError` has the same cases).
///
/// ```swift
/// let patients = try await store.fetchPatients(query: CareQuery(for: today, calendar: calendar))
/// store.addPatient(patient) { result in … }
/// ```
extension OTFCloudantStore {
    // MARK: Async

    /// The patients that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchPatients(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [Patient] {
        try await fetchCare(Patient.self, query: query)
    }

    /// The current patient with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchPatient(withID id: String) async throws(OTFCloudantError) -> Patient {
        try await fetchCare(Patient.self, withID: id)
    }

    /// Adds patients, in one transaction.
    @discardableResult
    public func addPatients(_ patients: [Patient]) async throws(OTFCloudantError) -> [Patient] { try await addCare(patients) }

    /// Adds one patient.
    @discardableResult
    public func addPatient(_ patient: Patient) async throws(OTFCloudantError) -> Patient { try await one(addCare([patient])) }

    /// Adds a new version of each patient, in one transaction.
    @discardableResult
    public func updatePatients(_ patients: [Patient]) async throws(OTFCloudantError) -> [Patient] { try await updateCare(patients) }

    /// Adds a new version of one patient.
    @discardableResult
    public func updatePatient(_ patient: Patient) async throws(OTFCloudantError) -> Patient { try await one(updateCare([patient])) }

    /// Deletes patients (a tombstone version each), in one transaction.
    @discardableResult
    public func deletePatients(_ patients: [Patient]) async throws(OTFCloudantError) -> [Patient] { try await deleteCare(patients) }

    /// Deletes one patient.
    @discardableResult
    public func deletePatient(_ patient: Patient) async throws(OTFCloudantError) -> Patient { try await one(deleteCare([patient])) }

    // MARK: Callbacks

    /// The patients that match `query`; see ``fetchPatients(query:)``.
    public func fetchPatients(
        query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Patient], OTFCloudantError>) -> Void
    ) {
        care(.fetch, on: callbackQueue, to: completion) { try await $0.fetch(Patient.self, query: query) }
    }

    /// The current patient with this id; see ``fetchPatient(withID:)``.
    public func fetchPatient(
        withID id: String, callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<Patient, OTFCloudantError>) -> Void
    ) {
        deliver(.fetch, on: callbackQueue, to: completion) { try await self.fetchPatient(withID: id) }
    }

    /// Adds patients; see ``addPatients(_:)``.
    public func addPatients(
        _ patients: [Patient], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Patient], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.add, on: callbackQueue, to: completion) { try await $0.add(patients) }
    }

    /// Adds one patient; see ``addPatient(_:)``.
    public func addPatient(
        _ patient: Patient, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Patient, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.add, on: callbackQueue, to: completion) { try await self.addPatient(patient) }
    }

    /// Updates patients; see ``updatePatients(_:)``.
    public func updatePatients(
        _ patients: [Patient], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Patient], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.update, on: callbackQueue, to: completion) { try await $0.update(patients) }
    }

    /// Updates one patient; see ``updatePatient(_:)``.
    public func updatePatient(
        _ patient: Patient, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Patient, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.update, on: callbackQueue, to: completion) { try await self.updatePatient(patient) }
    }

    /// Deletes patients; see ``deletePatients(_:)``.
    public func deletePatients(
        _ patients: [Patient], callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<[Patient], OTFCloudantError>) -> Void)? = nil
    ) {
        care(.delete, on: callbackQueue, to: completion) { try await $0.delete(patients) }
    }

    /// Deletes one patient; see ``deletePatient(_:)``.
    public func deletePatient(
        _ patient: Patient, callbackQueue: DispatchQueue = .main,
        completion: (@Sendable (Result<Patient, OTFCloudantError>) -> Void)? = nil
    ) {
        deliver(.delete, on: callbackQueue, to: completion) { try await self.deletePatient(patient) }
    }
}
