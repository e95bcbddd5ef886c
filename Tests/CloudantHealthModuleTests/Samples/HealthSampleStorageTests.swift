import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

@Suite("Health samples in a real store")
struct HealthSampleStorageTests {
    private let start = TestDates.june1

    private func heartRate(_ uuid: String = "A1B2C3D4-0000-4000-8000-000000000001") -> QuantitySample {
        QuantitySample(
            uuid: uuid, typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 71, unit: "count/min",
            startDate: start, endDate: start.addingTimeInterval(1), startUTCOffset: TestDates.pacific,
            source: HealthSource(name: "Jane’s Apple Watch", version: "10.4"),
            device: HealthDevice(name: "Apple Watch", manufacturer: "Apple Inc.", hardwareVersion: "Watch6,2"),
            metadata: [
                "HKWasUserEntered": false, "HKAverageMETs": 6.5, "HKTimeZone": "America/Los_Angeles",
                "custom": ["nested": [1, 2, 3]],
            ])
    }

    @Test func quantitySampleRoundTripsWithSourceDeviceAnyJSONMetadataAndItsOffset() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let sample = heartRate()
        try await harness.store.add([sample])
        var read = try await harness.store.get(QuantitySample.self, id: sample.id)
        #expect(read.revId?.hasPrefix("1-") == true)
        read.revId = nil
        #expect(read == sample)
        #expect(read.startUTCOffset == -25200)
        #expect(read.startTimeZone?.secondsFromGMT() == -25200)
        #expect(read.metadata["custom"]?["nested"] == [1, 2, 3])
    }

    @Test func everyFamilyIsStoredUnderItsOwnHealthKitKindName() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let child = heartRate("C0000000-0000-4000-8000-000000000001")
        let pressure = CorrelationSample(
            uuid: "C0000000-0000-4000-8000-0000000000BB", typeIdentifier: "HKCorrelationTypeIdentifierBloodPressure",
            startDate: start, endDate: start, quantitySamples: [child])
        let sleep = CategorySample(
            uuid: "C0000000-0000-4000-8000-0000000000CC", typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis",
            value: 3, valueName: "HKCategoryValueSleepAnalysisAsleepCore", startDate: start,
            endDate: start.addingTimeInterval(3600))
        let run = WorkoutSample(
            uuid: "C0000000-0000-4000-8000-0000000000DD", activityType: "HKWorkoutActivityTypeRunning",
            startDate: start, endDate: start.addingTimeInterval(1800), duration: 1700,
            totalEnergyBurned: HealthQuantity(value: 300, unit: .kilocalorie),
            totalDistance: HealthQuantity(value: 5, unit: .kilometer),
            events: [WorkoutEvent(type: "HKWorkoutEventTypePause", date: start.addingTimeInterval(600))],
            statistics: [WorkoutStatistics(
                typeIdentifier: "HKQuantityTypeIdentifierHeartRate", startDate: start,
                endDate: start.addingTimeInterval(1800), average: 150, minimum: 110, maximum: 175, unit: "count/min")])
        let route = WorkoutRouteSample(
            uuid: "C0000000-0000-4000-8000-0000000000EE", workoutID: run.id,
            locations: [
                RouteLocation(timestamp: start, latitude: 37.7749, longitude: -122.4194, altitude: 10,
                              horizontalAccuracy: 3, verticalAccuracy: 4, speed: 2.5, course: 90),
                RouteLocation(timestamp: start.addingTimeInterval(60), latitude: 37.7759, longitude: -122.4194),
            ])
        try await harness.store.add([pressure])
        try await harness.store.add([sleep])
        try await harness.store.add([run])
        try await harness.store.add([route])
        let kinds = try await harness.store.find(FindRequest(selector: try MangoSelector(["_id": ["$gt": nil]])))
            .docs.compactMap { $0["entityType"]?.stringValue }
        #expect(Set(kinds) == ["HKCorrelation", "HKCategorySample", "HKWorkout", "HKWorkoutRoute"])
        #expect(try await harness.store.get(CorrelationSample.self, id: pressure.id).quantitySamples == [child])
        let storedRun = try await harness.store.get(WorkoutSample.self, id: run.id)
        #expect(storedRun.totalDistance == HealthQuantity(value: 5, unit: .kilometer))
        #expect(storedRun.statistics.first?.maximum == 175)
        #expect(try await harness.store.get(WorkoutRouteSample.self, id: route.id).locations == route.locations)
        #expect(try await harness.store.get(CategorySample.self, id: sleep.id).valueName == sleep.valueName)
    }

    @Test func pluginRegistersNineKindsGenericSamplesLastThatShareTheTypeAndStartIndex() throws {
        let registry = try EntityRegistry(plugins: [HealthPlugin()])
        #expect(registry.kinds.map(\.name) == [
            "HKCategorySample", "HKQuantitySample", "HKCorrelation", "HKWorkout", "HKWorkoutRoute", "HKCDADocumentSample",
            "HKActivitySummary", "HKClinicalRecord", "HKSample",
        ])
        #expect(registry.kinds.allSatisfy { $0.indexes == [HealthPlugin.sampleIndex] })
        #expect(HealthPlugin.sampleIndex.fields.map(\.path) == ["entityType", "typeIdentifier", "startDate"])
    }

    @Test func aSampleEndingBeforeItStartsIsRejected() async throws {
        let harness = try HealthTestStore()
        defer { harness.remove() }
        var sample = heartRate()
        sample.endDate = start.addingTimeInterval(-1)
        await #expect(throws: CloudantError.self) { try await harness.store.add([sample]) }
    }
}
