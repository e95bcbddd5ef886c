import CloudantCareHealth
import CloudantStore
import Foundation
import Testing

/// A real SQLite store with the care and health kinds in a fresh temporary folder, a care store computing in
/// one IANA zone, and a fixed clock. The folder is deleted when the fixture goes away.
final class BridgeFixture: Sendable {
    static let steps = "HKQuantityTypeIdentifierStepCount"
    static let energy = "HKQuantityTypeIdentifierActiveEnergyBurned"
    static let glucose = "HKQuantityTypeIdentifierBloodGlucose"
    static let heartRate = "HKQuantityTypeIdentifierHeartRate"
    static let computedAt = Date(timeIntervalSinceReferenceDate: 800_000_000)

    let directory: URL
    let documents: DocumentStore
    let care: CareStore
    let careHealth: CareHealthStore
    let zone: TimeZone
    let calendar: Calendar

    init(zone identifier: String) throws {
        zone = try #require(TimeZone(identifier: identifier))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("bridge-tests-\(UUID().uuidString)")
        documents = try DocumentStore.open(
            name: "me", fileURL: directory.appendingPathComponent("me.sqlite"),
            options: StoreOptions(registry: try EntityRegistry.careHealth()))
        care = CareStore(store: documents, timeZone: zone, now: { BridgeFixture.computedAt })
        careHealth = CareHealthStore(care: care, now: { BridgeFixture.computedAt })
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A local wall-clock time in the fixture's zone.
    func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) throws
        -> Date
    {
        try #require(
            calendar.date(
                from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)))
    }

    /// A daily all-day task from the day holding `start`, linked as given.
    func dailyTask(
        id: String = "steps", uuid: Int = 1, start: Date, linkage: HealthKitLinkage, target: Double? = nil
    ) -> HealthKitLinkedTask {
        let element = ScheduleElement(
            start: calendar.startOfDay(for: start), end: nil, interval: .daily,
            targetValues: target.map { [OutcomeValue(.double($0), units: linkage.unitString, createdDate: start)] } ?? [],
            duration: .allDay, calendar: calendar)
        let task = CareTask(
            id: id, title: id, carePlanUUID: nil, schedule: Schedule(composing: [element]), uuid: Self.uuid(uuid),
            timezone: zone)
        return HealthKitLinkedTask(task: task, healthKitLinkage: linkage)
    }

    static func stepLinkage() -> HealthKitLinkage {
        HealthKitLinkage(quantityIdentifier: steps, quantityType: .cumulative, unitString: "count")
    }

    static func uuid(_ number: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", number)) ?? UUID()
    }

    /// A quantity sample of `type` over `[start, end]`.
    func sample(
        _ uuid: String, _ type: String = BridgeFixture.steps, value: Double, unit: String = "count", start: Date,
        end: Date? = nil
    ) -> QuantitySample {
        QuantitySample(
            uuid: uuid, typeIdentifier: type, value: value, unit: unit, startDate: start, endDate: end ?? start,
            startUTCOffset: zone.secondsFromGMT(for: start))
    }

    /// The interval from local midnight of `first` to local midnight after `days` days.
    func days(from first: Date, count days: Int) throws -> DateInterval {
        let start = calendar.startOfDay(for: first)
        return DateInterval(start: start, end: try #require(calendar.date(byAdding: .day, value: days, to: start)))
    }
}
