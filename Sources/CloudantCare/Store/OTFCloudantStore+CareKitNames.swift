public import CloudantCareModule
public import CloudantOnly
public import Dispatch

/// What a CareKit-named call with a callback delivers: its result, once, on the `callbackQueue` given.
public typealias OTFCompletion<Value> = @Sendable (Result<Value, OTFCloudantError>) -> Void

/// CareKit's names on the drop-in store, for patients, care plans, contacts, tasks and outcomes (`fetchTasks`,
/// `addOutcome`, `updateCarePlans`, …): singular and plural, async and with callbacks, as the original's
/// `OCKStoreProtocol` conformance offered them. Each is one line over the generic care calls (``fetchCare(_:query:)``,
/// ``addCare(_:)``, …), which do the work for every kind alike; results carry `OTFCloudantError` (CareKit's
/// `OCKStoreError` is the same type).
///
/// ```swift
/// let tasks = try await store.fetchTasks(query: CareQuery(for: today, calendar: calendar))
/// store.addOutcome(outcome) { result in … }
/// ```
extension OTFCloudantStore {
    // MARK: Patients

    /// The patients that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchPatients(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [Patient] {
        try await fetchCare(Patient.self, query: query)
    }

    /// The current patient with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchPatient(withID id: String) async throws(OTFCloudantError) -> Patient { try await fetchCare(Patient.self, withID: id) }

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

    /// ``fetchPatients(query:)`` with a callback.
    public func fetchPatients(query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<[Patient]>) {
        fetchCare(Patient.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``fetchPatient(withID:)`` with a callback.
    public func fetchPatient(withID id: String, callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<Patient>) {
        fetchCare(Patient.self, withID: id, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``addPatients(_:)`` with a callback.
    public func addPatients(_ patients: [Patient], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Patient]>? = nil) {
        write(.add, patients, on: callbackQueue, to: completion)
    }

    /// ``addPatient(_:)`` with a callback.
    public func addPatient(_ patient: Patient, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Patient>? = nil) {
        write(.add, patient, on: callbackQueue, to: completion)
    }

    /// ``updatePatients(_:)`` with a callback.
    public func updatePatients(_ patients: [Patient], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Patient]>? = nil) {
        write(.update, patients, on: callbackQueue, to: completion)
    }

    /// ``updatePatient(_:)`` with a callback.
    public func updatePatient(_ patient: Patient, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Patient>? = nil) {
        write(.update, patient, on: callbackQueue, to: completion)
    }

    /// ``deletePatients(_:)`` with a callback.
    public func deletePatients(_ patients: [Patient], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Patient]>? = nil) {
        write(.delete, patients, on: callbackQueue, to: completion)
    }

    /// ``deletePatient(_:)`` with a callback.
    public func deletePatient(_ patient: Patient, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Patient>? = nil) {
        write(.delete, patient, on: callbackQueue, to: completion)
    }

    // MARK: CarePlans

    /// The carePlans that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchCarePlans(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [CarePlan] {
        try await fetchCare(CarePlan.self, query: query)
    }

    /// The current care plan with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchCarePlan(withID id: String) async throws(OTFCloudantError) -> CarePlan { try await fetchCare(CarePlan.self, withID: id) }

    /// Adds care plans, in one transaction.
    @discardableResult
    public func addCarePlans(_ carePlans: [CarePlan]) async throws(OTFCloudantError) -> [CarePlan] { try await addCare(carePlans) }

    /// Adds one care plan.
    @discardableResult
    public func addCarePlan(_ carePlan: CarePlan) async throws(OTFCloudantError) -> CarePlan { try await one(addCare([carePlan])) }

    /// Adds a new version of each care plan, in one transaction.
    @discardableResult
    public func updateCarePlans(_ carePlans: [CarePlan]) async throws(OTFCloudantError) -> [CarePlan] { try await updateCare(carePlans) }

    /// Adds a new version of one care plan.
    @discardableResult
    public func updateCarePlan(_ carePlan: CarePlan) async throws(OTFCloudantError) -> CarePlan { try await one(updateCare([carePlan])) }

    /// Deletes care plans (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteCarePlans(_ carePlans: [CarePlan]) async throws(OTFCloudantError) -> [CarePlan] { try await deleteCare(carePlans) }

    /// Deletes one care plan.
    @discardableResult
    public func deleteCarePlan(_ carePlan: CarePlan) async throws(OTFCloudantError) -> CarePlan { try await one(deleteCare([carePlan])) }

    /// ``fetchCarePlans(query:)`` with a callback.
    public func fetchCarePlans(query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<[CarePlan]>) {
        fetchCare(CarePlan.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``fetchCarePlan(withID:)`` with a callback.
    public func fetchCarePlan(withID id: String, callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<CarePlan>) {
        fetchCare(CarePlan.self, withID: id, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``addCarePlans(_:)`` with a callback.
    public func addCarePlans(_ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[CarePlan]>? = nil) {
        write(.add, carePlans, on: callbackQueue, to: completion)
    }

    /// ``addCarePlan(_:)`` with a callback.
    public func addCarePlan(_ carePlan: CarePlan, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<CarePlan>? = nil) {
        write(.add, carePlan, on: callbackQueue, to: completion)
    }

    /// ``updateCarePlans(_:)`` with a callback.
    public func updateCarePlans(_ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[CarePlan]>? = nil) {
        write(.update, carePlans, on: callbackQueue, to: completion)
    }

    /// ``updateCarePlan(_:)`` with a callback.
    public func updateCarePlan(_ carePlan: CarePlan, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<CarePlan>? = nil) {
        write(.update, carePlan, on: callbackQueue, to: completion)
    }

    /// ``deleteCarePlans(_:)`` with a callback.
    public func deleteCarePlans(_ carePlans: [CarePlan], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[CarePlan]>? = nil) {
        write(.delete, carePlans, on: callbackQueue, to: completion)
    }

    /// ``deleteCarePlan(_:)`` with a callback.
    public func deleteCarePlan(_ carePlan: CarePlan, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<CarePlan>? = nil) {
        write(.delete, carePlan, on: callbackQueue, to: completion)
    }

    // MARK: Contacts

    /// The contacts that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchContacts(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [Contact] {
        try await fetchCare(Contact.self, query: query)
    }

    /// The current contact with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchContact(withID id: String) async throws(OTFCloudantError) -> Contact { try await fetchCare(Contact.self, withID: id) }

    /// Adds contacts, in one transaction.
    @discardableResult
    public func addContacts(_ contacts: [Contact]) async throws(OTFCloudantError) -> [Contact] { try await addCare(contacts) }

    /// Adds one contact.
    @discardableResult
    public func addContact(_ contact: Contact) async throws(OTFCloudantError) -> Contact { try await one(addCare([contact])) }

    /// Adds a new version of each contact, in one transaction.
    @discardableResult
    public func updateContacts(_ contacts: [Contact]) async throws(OTFCloudantError) -> [Contact] { try await updateCare(contacts) }

    /// Adds a new version of one contact.
    @discardableResult
    public func updateContact(_ contact: Contact) async throws(OTFCloudantError) -> Contact { try await one(updateCare([contact])) }

    /// Deletes contacts (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteContacts(_ contacts: [Contact]) async throws(OTFCloudantError) -> [Contact] { try await deleteCare(contacts) }

    /// Deletes one contact.
    @discardableResult
    public func deleteContact(_ contact: Contact) async throws(OTFCloudantError) -> Contact { try await one(deleteCare([contact])) }

    /// ``fetchContacts(query:)`` with a callback.
    public func fetchContacts(query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<[Contact]>) {
        fetchCare(Contact.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``fetchContact(withID:)`` with a callback.
    public func fetchContact(withID id: String, callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<Contact>) {
        fetchCare(Contact.self, withID: id, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``addContacts(_:)`` with a callback.
    public func addContacts(_ contacts: [Contact], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Contact]>? = nil) {
        write(.add, contacts, on: callbackQueue, to: completion)
    }

    /// ``addContact(_:)`` with a callback.
    public func addContact(_ contact: Contact, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Contact>? = nil) {
        write(.add, contact, on: callbackQueue, to: completion)
    }

    /// ``updateContacts(_:)`` with a callback.
    public func updateContacts(_ contacts: [Contact], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Contact]>? = nil) {
        write(.update, contacts, on: callbackQueue, to: completion)
    }

    /// ``updateContact(_:)`` with a callback.
    public func updateContact(_ contact: Contact, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Contact>? = nil) {
        write(.update, contact, on: callbackQueue, to: completion)
    }

    /// ``deleteContacts(_:)`` with a callback.
    public func deleteContacts(_ contacts: [Contact], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Contact]>? = nil) {
        write(.delete, contacts, on: callbackQueue, to: completion)
    }

    /// ``deleteContact(_:)`` with a callback.
    public func deleteContact(_ contact: Contact, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Contact>? = nil) {
        write(.delete, contact, on: callbackQueue, to: completion)
    }

    // MARK: Tasks

    /// The tasks that match `query` (in effect during the query's date interval); `limit` and `offset` are honoured.
    public func fetchTasks(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [CareTask] {
        try await fetchCare(CareTask.self, query: query)
    }

    /// The current task with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchTask(withID id: String) async throws(OTFCloudantError) -> CareTask { try await fetchCare(CareTask.self, withID: id) }

    /// Adds tasks, in one transaction.
    @discardableResult
    public func addTasks(_ tasks: [CareTask]) async throws(OTFCloudantError) -> [CareTask] { try await addCare(tasks) }

    /// Adds one task.
    @discardableResult
    public func addTask(_ task: CareTask) async throws(OTFCloudantError) -> CareTask { try await one(addCare([task])) }

    /// Adds a new version of each task, in one transaction.
    @discardableResult
    public func updateTasks(_ tasks: [CareTask]) async throws(OTFCloudantError) -> [CareTask] { try await updateCare(tasks) }

    /// Adds a new version of one task.
    @discardableResult
    public func updateTask(_ task: CareTask) async throws(OTFCloudantError) -> CareTask { try await one(updateCare([task])) }

    /// Deletes tasks (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteTasks(_ tasks: [CareTask]) async throws(OTFCloudantError) -> [CareTask] { try await deleteCare(tasks) }

    /// Deletes one task.
    @discardableResult
    public func deleteTask(_ task: CareTask) async throws(OTFCloudantError) -> CareTask { try await one(deleteCare([task])) }

    /// ``fetchTasks(query:)`` with a callback.
    public func fetchTasks(query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<[CareTask]>) {
        fetchCare(CareTask.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``fetchTask(withID:)`` with a callback.
    public func fetchTask(withID id: String, callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<CareTask>) {
        fetchCare(CareTask.self, withID: id, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``addTasks(_:)`` with a callback.
    public func addTasks(_ tasks: [CareTask], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[CareTask]>? = nil) {
        write(.add, tasks, on: callbackQueue, to: completion)
    }

    /// ``addTask(_:)`` with a callback.
    public func addTask(_ task: CareTask, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<CareTask>? = nil) {
        write(.add, task, on: callbackQueue, to: completion)
    }

    /// ``updateTasks(_:)`` with a callback.
    public func updateTasks(_ tasks: [CareTask], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[CareTask]>? = nil) {
        write(.update, tasks, on: callbackQueue, to: completion)
    }

    /// ``updateTask(_:)`` with a callback.
    public func updateTask(_ task: CareTask, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<CareTask>? = nil) {
        write(.update, task, on: callbackQueue, to: completion)
    }

    /// ``deleteTasks(_:)`` with a callback.
    public func deleteTasks(_ tasks: [CareTask], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[CareTask]>? = nil) {
        write(.delete, tasks, on: callbackQueue, to: completion)
    }

    /// ``deleteTask(_:)`` with a callback.
    public func deleteTask(_ task: CareTask, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<CareTask>? = nil) {
        write(.delete, task, on: callbackQueue, to: completion)
    }

    // MARK: Outcomes

    /// The outcomes that match `query` (matched by event date (CareKit's rule), or by creation date with `CareQuery.createdDateInterval`); `limit` and `offset` are honoured.
    public func fetchOutcomes(query: CareQuery = CareQuery()) async throws(OTFCloudantError) -> [Outcome] {
        try await fetchCare(Outcome.self, query: query)
    }

    /// The current outcome with this id (its newest live version).
    /// - Throws: `OTFCloudantError.fetchFailed(reason:)` when there is none.
    public func fetchOutcome(withID id: String) async throws(OTFCloudantError) -> Outcome { try await fetchCare(Outcome.self, withID: id) }

    /// Adds outcomes, in one transaction.
    @discardableResult
    public func addOutcomes(_ outcomes: [Outcome]) async throws(OTFCloudantError) -> [Outcome] { try await addCare(outcomes) }

    /// Adds one outcome.
    @discardableResult
    public func addOutcome(_ outcome: Outcome) async throws(OTFCloudantError) -> Outcome { try await one(addCare([outcome])) }

    /// Adds a new version of each outcome, in one transaction.
    @discardableResult
    public func updateOutcomes(_ outcomes: [Outcome]) async throws(OTFCloudantError) -> [Outcome] { try await updateCare(outcomes) }

    /// Adds a new version of one outcome.
    @discardableResult
    public func updateOutcome(_ outcome: Outcome) async throws(OTFCloudantError) -> Outcome { try await one(updateCare([outcome])) }

    /// Deletes outcomes (a tombstone version each), in one transaction.
    @discardableResult
    public func deleteOutcomes(_ outcomes: [Outcome]) async throws(OTFCloudantError) -> [Outcome] { try await deleteCare(outcomes) }

    /// Deletes one outcome.
    @discardableResult
    public func deleteOutcome(_ outcome: Outcome) async throws(OTFCloudantError) -> Outcome { try await one(deleteCare([outcome])) }

    /// ``fetchOutcomes(query:)`` with a callback.
    public func fetchOutcomes(query: CareQuery = CareQuery(), callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<[Outcome]>) {
        fetchCare(Outcome.self, query: query, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``fetchOutcome(withID:)`` with a callback.
    public func fetchOutcome(withID id: String, callbackQueue: DispatchQueue = .main, completion: @escaping OTFCompletion<Outcome>) {
        fetchCare(Outcome.self, withID: id, callbackQueue: callbackQueue, completion: completion)
    }

    /// ``addOutcomes(_:)`` with a callback.
    public func addOutcomes(_ outcomes: [Outcome], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Outcome]>? = nil) {
        write(.add, outcomes, on: callbackQueue, to: completion)
    }

    /// ``addOutcome(_:)`` with a callback.
    public func addOutcome(_ outcome: Outcome, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Outcome>? = nil) {
        write(.add, outcome, on: callbackQueue, to: completion)
    }

    /// ``updateOutcomes(_:)`` with a callback.
    public func updateOutcomes(_ outcomes: [Outcome], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Outcome]>? = nil) {
        write(.update, outcomes, on: callbackQueue, to: completion)
    }

    /// ``updateOutcome(_:)`` with a callback.
    public func updateOutcome(_ outcome: Outcome, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Outcome>? = nil) {
        write(.update, outcome, on: callbackQueue, to: completion)
    }

    /// ``deleteOutcomes(_:)`` with a callback.
    public func deleteOutcomes(_ outcomes: [Outcome], callbackQueue: DispatchQueue = .main, completion: OTFCompletion<[Outcome]>? = nil) {
        write(.delete, outcomes, on: callbackQueue, to: completion)
    }

    /// ``deleteOutcome(_:)`` with a callback.
    public func deleteOutcome(_ outcome: Outcome, callbackQueue: DispatchQueue = .main, completion: OTFCompletion<Outcome>? = nil) {
        write(.delete, outcome, on: callbackQueue, to: completion)
    }
}
