import CloudantCore
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
        let quantities = try await harness.store.collection(healthKitSampleType: .quantity).getSamples()
        #expect(quantities.count == 20)
        #expect(quantities.allSatisfy { $0.sampleType == .quantity })
        let categories = try await harness.store.collection(healthKitSampleType: .category).getSamples()
        #expect(categories.map(\.typeIdentifier) == ["HKCategoryTypeIdentifierSleepAnalysis"])
    }

    @Test func samplesByTypeAndIntervalAreTheOnesStartingInsideOrderedByStart() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let window = DateInterval(start: start.addingTimeInterval(2 * 3600), end: start.addingTimeInterval(5 * 3600))
        let steps = try await harness.store.samples(ofType: "HKQuantityTypeIdentifierStepCount", in: window)
        #expect(steps.map(\.startDate) == [2.0, 3, 4].map { start.addingTimeInterval($0 * 3600) })
        #expect(steps.allSatisfy { $0.typeIdentifier == "HKQuantityTypeIdentifierStepCount" })
        #expect(try await harness.store.samples(ofType: "HKQuantityTypeIdentifierHeartRate").count == 10)
    }

    @Test func theTypeAndDateQueryUsesThePluginsIndex() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let request = try harness.store.collection(healthKitSampleType: .quantity)
            .where(typeIdentifier: "HKQuantityTypeIdentifierHeartRate")
            .where(startDateIn: DateInterval(start: start, duration: 3600)).request
        let plan = try await harness.store.explain(request)
        #expect(plan["index"]?["name"] == .string(HealthPlugin.sampleIndex.name))
    }

    @Test func getSamplesOnANonHealthKindIsATypedError() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        await #expect(throws: CloudantError.self) { try await harness.store.collection("Note").getSamples() }
        await #expect(throws: CloudantError.self) { try await harness.store.samples(ofType: "Steps") }
    }

    @Test func callbackFormDeliversTheSamePage() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let count = await withCheckedContinuation { continuation in
            harness.store.collection(healthKitSampleType: .quantity).getSamples(callbackQueue: .global()) { result in
                continuation.resume(returning: (try? result.get())?.count ?? -1)
            }
        }
        #expect(count == 20)
    }
}
