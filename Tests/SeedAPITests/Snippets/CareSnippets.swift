// OTFCloudantStore's README, "CareKit Integration": the store adds, updates, deletes and fetches CareKit's models (patients,
// care plans, contacts, tasks, outcomes) with CareKit's names. Compiled against CloudantCare alone.
//
// Changed for Linux: CareKit's OCKPatient, OCKCarePlan, OCKTask, OCKOutcome are this module's Patient,
// CarePlan, CareTask, Outcome; OCKPatientQuery and friends are one CareQuery; OCKStoreError is the same enum
// as OTFCloudantError (the original mapped one to the other case for case).
import CloudantCare
import Dispatch
import Foundation

/// What the care snippets did.
struct CareSnippetFindings: Sendable {
    var patients: [String] = []
    var plans: [String] = []
    var tasks: [String] = []
    var outcomeValues: [Double] = []
    var updatedTitle: String?
    var deletedPlanGone = false
    var pagedTaskIDs: [[String]] = []
    var outcomesByCreation: [String] = []
    var errors: [String: String] = [:]
}

enum CareSnippets {
    static let queue = DispatchQueue(label: "seed-care-snippets")

    static func run(_ store: OTFCloudantStore, now: Date) async throws -> CareSnippetFindings {
        var findings = CareSnippetFindings()
        let utc = TimeZone(identifier: "UTC") ?? .current
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc

        // Singular, with a callback.
        var name = PersonNameComponents()
        name.givenName = "Anna"
        name.familyName = "Keller"
        let patient: Result<Patient, OCKStoreError> = await callback { done in
            store.addPatient(Patient(id: "anna", name: name, effectiveDate: now, timezone: utc), callbackQueue: queue) { done($0) }
        }
        let anna = try patient.get()

        // Plural, async.
        let plans = try await store.addCarePlans([
            CarePlan(id: "hypertension", title: "Hypertension", patientUUID: anna.uuid, effectiveDate: now, timezone: utc),
            CarePlan(id: "wellness", title: "Wellness", patientUUID: anna.uuid, effectiveDate: now, timezone: utc),
        ])
        let start = calendar.startOfDay(for: now)
        let meds = CareTask(
            id: "meds", title: "Lisinopril", carePlanUUID: plans[0].uuid,
            schedule: try .dailyAtTime(hour: 8, minutes: 0, start: start, end: nil, text: nil, calendar: calendar), timezone: utc)
        let walk = CareTask(
            id: "walk", title: "Walk", carePlanUUID: plans[1].uuid,
            schedule: try .dailyAtTime(hour: 18, minutes: 0, start: start, end: nil, text: nil, calendar: calendar), timezone: utc)
        let tasks: Result<[CareTask], OCKStoreError> = await callback { done in
            store.addTasks([meds, walk], callbackQueue: queue) { done($0) }
        }
        let stored = try tasks.get()

        let outcome = Outcome(taskUUID: stored[0].uuid, taskOccurrenceIndex: 0, values: [OutcomeValue(.double(120), units: "mmHg")], effectiveDate: now, timezone: utc)
        let recorded = try await store.addOutcome(outcome)
        var corrected = recorded
        corrected.values = [OutcomeValue(.double(118), units: "mmHg")]
        _ = try await store.updateOutcomes([corrected])

        // fetchTasks(query:), with CareKit's limit and offset honoured (the original ignored offset, stopped at 30).
        var page = CareQuery()
        page.sort = [CareSort(.title)]
        page.limit = 1
        findings.pagedTaskIDs.append(try await store.fetchTasks(query: page).map(\.id))
        page.offset = 1
        findings.pagedTaskIDs.append(try await store.fetchTasks(query: page).map(\.id))

        var renamed = try await store.fetchCarePlan(withID: "wellness")
        renamed.title = "Wellness check-ins"
        findings.updatedTitle = try await store.updateCarePlan(renamed).title

        let fetchedPatients: Result<[Patient], OCKStoreError> = await callback { done in
            store.fetchPatients(callbackQueue: queue) { done($0) }
        }
        findings.patients = try fetchedPatients.get().compactMap(\.name.givenName)
        // The versions in effect today (without a date interval, CareKit returns every version, old ones too).
        let today = CareQuery(for: now, calendar: calendar)
        findings.plans = try await store.fetchCarePlans(query: today).map(\.title).sorted()
        findings.tasks = try await store.fetchTasks().map(\.id).sorted()
        findings.outcomeValues = try await store.fetchOutcomes(query: CareQuery(for: now, calendar: calendar))
            .flatMap(\.values).compactMap { if case .double(let value) = $0.value { value } else { nil } }

        // Outcomes by the day they were recorded (CareKit #669), whatever day their event was.
        var recordedToday = CareQuery()
        recordedToday.createdDateInterval = DateInterval(start: start, duration: 86_399)
        findings.outcomesByCreation = try await store.fetchOutcomes(query: recordedToday).map(\.id)

        let deleted: Result<[CarePlan], OCKStoreError> = await callback { done in
            store.deleteCarePlans([renamed], callbackQueue: queue) { done($0) }
        }
        _ = try deleted.get()
        var wellnessToday = today
        wellnessToday.ids = ["wellness"]
        findings.deletedPlanGone = try await store.fetchCarePlans(query: wellnessToday).isEmpty

        do {
            _ = try await store.fetchPatient(withID: "nobody")
        } catch {
            findings.errors["missingPatient"] = StoreSnippets.describe(error.toOCKStoreError())
        }
        do {
            _ = try await store.addPatient(anna)
        } catch {
            findings.errors["duplicatePatient"] = StoreSnippets.describe(error)
        }
        return findings
    }
}
