import CloudantCore
import CloudantHealth
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("Health queries")
struct HealthQueriesTests {
    private let start = TestDates.june1

    private func sample(_ index: Int, type: String, hoursLater: Double) -> QuantitySample {
        QuantitySample(
            uuid: String(format: "00000000-0000-4000-8000-%012d", index), typeIdentifier: type, value: Double(index),
            unit: "count", startDate: start.addingTimeInterval(hoursLater * 3600),
            endDate: start.addingTimeInterval(hoursLater * 3600 + 60), startUTCOffset: TestDates.pacific)
    }

    private func seeded() async throws -> HealthTestStore {
        let harness = try HealthTestStore()
        var samples: [QuantitySample] = []
        for index in 0..<10 {
            samples.append(sample(index, type: "HKQuantityTypeIdentifierStepCount", hoursLater: Double(index)))
            samples.append(sample(100 + index, type: "HKQuantityTypeIdentifierHeartRate", hoursLater: Double(index)))
        }
        try await harness.store.add(samples)
        try await harness.store.add([CategorySample(
            uuid: "CA000000-0000-4000-8000-000000000001", typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis",
            value: 1, startDate: start, endDate: start.addingTimeInterval(60))])
        return harness
    }

    @Test func collectionOfAHealthKitSampleTypeReturnsOnlyThatFamily() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let quantities = try await HealthStore(store: harness.store).collection(healthKitSampleType: .quantity).getSamples()
        #expect(quantities.count == 20)
        #expect(quantities.allSatisfy { $0.sampleType == .quantity })
        let categories = try await HealthStore(store: harness.store).collection(healthKitSampleType: .category).getSamples()
        #expect(categories.map(\.typeIdentifier) == ["HKCategoryTypeIdentifierSleepAnalysis"])
    }

    @Test func samplesByTypeAndIntervalAreTheOnesStartingInsideOrderedByStart() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let window = DateInterval(start: start.addingTimeInterval(2 * 3600), end: start.addingTimeInterval(5 * 3600))
        let steps = try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierStepCount", in: window)
        #expect(steps.map(\.startDate) == [2.0, 3, 4].map { start.addingTimeInterval($0 * 3600) })
        #expect(steps.allSatisfy { $0.typeIdentifier == "HKQuantityTypeIdentifierStepCount" })
        #expect(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierHeartRate").count == 10)
    }

    @Test func activitySummariesComeBackByTypeIdentifierAndDayInterval() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let days = (1...10).compactMap { CalendarDay(year: 2024, month: 3, day: $0) }
        try await harness.store.add(days.map {
            ActivitySummarySample(day: $0, appleExerciseTime: HealthQuantity(value: Double($0.day), unit: .minute))
        })
        let type = ActivitySummarySample.activitySummaryTypeIdentifier
        #expect(try await HealthStore(store: harness.store).samples(ofType: type).count == 10)
        let window = DateInterval(start: days[2].floatingInterval.start, end: days[5].floatingInterval.start)
        let found = try await HealthStore(store: harness.store).samples(ofType: type, in: window)
        #expect(found.map(\.sampleType) == [.activitySummary, .activitySummary, .activitySummary])
        let summaries = found.compactMap { if case .activitySummary(let summary) = $0 { summary } else { nil } }
        #expect(summaries.map(\.day) == Array(days[2..<5]))
        #expect(summaries.map(\.appleExerciseTime?.value) == [3, 4, 5])
        #expect(try await HealthStore(store: harness.store).collection(healthKitSampleType: .activitySummary).getSamples().count == 10)
    }

    @Test func clinicalRecordsComeBackByClinicalTypeAndClinicalDate() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let labs = (0..<6).map { index in
            ActivitySummaryAndClinicalRecordTests.labResult(
                uuid: String(format: "C1000000-0000-4000-8000-%012d", index),
                at: start.addingTimeInterval(Double(index) * 86_400))
        }
        try await harness.store.add(labs)
        let condition = ClinicalRecordSample(
            uuid: "C2000000-0000-4000-8000-000000000001", displayName: "High blood pressure",
            fhirResource: FHIRResource(
                resourceType: "Condition", identifier: "c1", fhirVersion: "4.0.1",
                data: ["resourceType": "Condition", "onsetDateTime": "2024-06-02T00:00:00Z"]),
            receivedDate: start, startDate: start.addingTimeInterval(86_400))
        try await harness.store.add([condition])

        let window = DateInterval(start: start.addingTimeInterval(86_400), end: start.addingTimeInterval(4 * 86_400))
        let found = try await HealthStore(store: harness.store).samples(ofType: ClinicalTypeIdentifier.labResultRecord, in: window)
        #expect(found.map(\.id) == labs[1..<4].map(\.id))
        #expect(found.allSatisfy { $0.sampleType == .clinicalRecord })
        let conditions = try await HealthStore(store: harness.store).samples(ofType: ClinicalTypeIdentifier.conditionRecord, in: window)
        #expect(conditions.map(\.id) == [condition.id])
        #expect(try await HealthStore(store: harness.store).samples(ofType: ClinicalTypeIdentifier.immunizationRecord).isEmpty)
        let plan = try await harness.store.explain(
            try HealthStore(store: harness.store).collection(healthKitSampleType: .clinicalRecord)
                .where(typeIdentifier: ClinicalTypeIdentifier.labResultRecord).where(startDateIn: window).request)
        #expect(plan["index"]?["name"] == .string(HealthPlugin.sampleIndex.name))
    }

    @Test func getSamplesOnANonHealthKindIsATypedError() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        await #expect(throws: CloudantError.self) { try await harness.store.collection("Note").getSamples() }
        await #expect(throws: CloudantError.self) { try await HealthStore(store: harness.store).samples(ofType: "") }
        // An identifier the store does not model reads its generic samples: none here.
        #expect(try await HealthStore(store: harness.store).samples(ofType: "Steps").isEmpty)
    }

    @Test func callbackFormDeliversTheSamePage() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let count = await withCheckedContinuation { continuation in
            HealthStore(store: harness.store).collection(healthKitSampleType: .quantity).getSamples(callbackQueue: .global()) { result in
                continuation.resume(returning: (try? result.get())?.count ?? -1)
            }
        }
        #expect(count == 20)
    }
}
