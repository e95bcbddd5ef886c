import CloudantCareModule
import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// A real SQLite store with the care plugin in a fresh temporary directory, with a settable clock and
/// sequential uuids. The folder it made is deleted when the fixture goes away, so runs leave nothing in /tmp.
final class CareFixture: Sendable {
    let directory: URL
    private let ownsDirectory: Bool
    let documents: DocumentStore
    let care: CareStore
    let clock: ManualClock
    let utc: Zone

    init(name: String = "care", uuidBase: Int = 1000, directory: URL? = nil) throws {
        utc = try Zone.utc()
        let folder = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("care-tests-\(UUID().uuidString)")
        self.directory = folder
        ownsDirectory = directory == nil
        let registry = try EntityRegistry(plugins: [CarePlugin()])
        documents = try DocumentStore.open(
            name: name, fileURL: folder.appendingPathComponent("\(name).sqlite"),
            options: StoreOptions(registry: registry))
        let clock = ManualClock(try utc.date(2024, 1, 1))
        self.clock = clock
        let uuids = SequentialNumbers(after: uuidBase)
        care = CareStore(store: documents, timeZone: utc.timeZone, now: { clock.now }, makeUUID: { uuids.nextUUID() })
    }

    deinit {
        // SQLite keeps its open descriptors valid after the unlink, so this is safe while the store lives on.
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    /// A daily 08:00 task (1 h events) from `start`, effective from it.
    func dailyTask(id: String, uuid: Int, start: Date, carePlanUUID: UUID? = nil) throws -> CareTask {
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: start, end: nil, text: nil, calendar: utc.calendar)
        return CareTask(
            id: id, title: id, carePlanUUID: carePlanUUID, schedule: schedule, uuid: testUUID(uuid),
            timezone: utc.timeZone)
    }

    func outcome(task: UUID, occurrence: Int, uuid: Int, id: String? = nil) throws -> Outcome {
        Outcome(
            taskUUID: task, taskOccurrenceIndex: occurrence, values: [OutcomeValue(.boolean(true), createdDate: clock.now)],
            id: id, uuid: testUUID(uuid), effectiveDate: clock.now, timezone: utc.timeZone)
    }

    func plan(id: String, uuid: Int, patientUUID: UUID? = nil) -> CarePlan {
        CarePlan(
            id: id, title: id.capitalized, patientUUID: patientUUID, uuid: testUUID(uuid), effectiveDate: clock.now,
            timezone: utc.timeZone)
    }
}
