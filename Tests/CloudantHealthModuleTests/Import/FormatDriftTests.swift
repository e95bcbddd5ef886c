import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation
import Testing

/// One test per hand-written export of `Tests/Fixtures/HealthExports` (iOS 12 to 18): exact counts, and the
/// drift each generation brought read as it should.
@Suite("Apple Health exports from iOS 12 to 18")
struct FormatDriftTests {
    private func only<T>(_ samples: [AnyHealthSample], _ pick: (AnyHealthSample) -> T?) -> [T] { samples.compactMap(pick) }

    @Test func iOS12RoutesAreLocationElementsAndTotalsAreAttributes() async throws {
        let (report, harness) = try await DriftFixture.imported("ios12")
        defer { harness.remove() }
        #expect(report.recordsRead == 6)
        #expect(report.samplesByType == [
            "HKQuantityTypeIdentifierBodyMassIndex": 1, "HKQuantityTypeIdentifierHeartRate": 2,
            "HKQuantityTypeIdentifierStepCount": 1, "HKQuantityTypeIdentifierDietaryFatTotal": 1,
            "HKCategoryTypeIdentifierSleepAnalysis": 1,
        ])
        #expect(report.workoutsByType == ["HKWorkoutActivityTypeRunning": 1])
        #expect(report.workoutRoutes == 1 && report.routePoints == 3)
        #expect(report.activitySummaries == 1 && report.metadataEntries == 10)
        #expect(report.skippedCount == 0 && report.genericSamplesByType.isEmpty && report.warnings.isEmpty)
        #expect(report.documentsNew == 9 && report.documentsWritten == 9)

        let workout = try #require(try await harness.store.get(WorkoutSample.self).first)
        #expect(workout.totalDistance?.unit == .mile && workout.totalDistance?.value == 0.4971749504535062)
        // Minutes as written, in seconds: the product is rounded, so compare to the last bits.
        #expect(abs(workout.duration - 5.19412346680959 * 60) < 1e-9)
        // Metadata is typed: a quantity, a percentage, a time zone's name.
        #expect(workout.metadata["HKWeatherTemperature"] == .object(["unit": "degF", "value": 56]))
        #expect(workout.metadata["HKWeatherHumidity"] == .object(["unit": "%", "value": 96]))
        #expect(workout.metadata["HKTimeZone"] == "America/Los_Angeles")
        let route = try #require(try await harness.store.get(WorkoutRouteSample.self).first)
        #expect(route.workoutID == workout.id && route.locations.count == 3)
        #expect(route.locations.first?.course == nil, "course -1 is Core Location's unknown")
        #expect(route.locations.last?.course == 43)
        let bmi = only(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierBodyMassIndex")) {
            if case .quantity(let sample) = $0 { sample } else { nil }
        }
        #expect(bmi.first?.metadata["Withings User Identifier"] == "012345", "an identifier keeps its leading zero")
        #expect(bmi.first?.metadata["Modified Date"] == "2018-11-18T16:56:05+00:00")
        #expect(bmi.first?.metadata["HKWasUserEntered"] == 0)
        // The two heart rates of one watch carry different HKDevice pointers and read as one device.
        let rates = only(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierHeartRate")) {
            if case .quantity(let sample) = $0 { sample } else { nil }
        }
        #expect(Set(rates.compactMap(\.device)).count == 1)
        #expect(rates.first?.device?.manufacturer == "Apple")
    }

    @Test func iOS13RoutesAreGPXFilesAndAFileListedTwiceIsOneRoute() async throws {
        let (report, harness) = try await DriftFixture.imported("ios13")
        defer { harness.remove() }
        #expect(report.recordsRead == 7 && report.samplesByType.values.reduce(0, +) == 7)
        // The blood pressure correlation's two members are counted as its members, not again as records.
        #expect(report.samplesByType == [
            "HKQuantityTypeIdentifierBloodPressureSystolic": 1, "HKQuantityTypeIdentifierBloodPressureDiastolic": 1,
            "HKQuantityTypeIdentifierDietaryWater": 1, "HKQuantityTypeIdentifierDistanceWalkingRunning": 1,
            "HKQuantityTypeIdentifierEnvironmentalAudioExposure": 1, "HKQuantityTypeIdentifierHeartRate": 1,
            "HKQuantityTypeIdentifierStepCount": 1,
        ])
        #expect(report.genericSamplesByType.isEmpty)
        #expect(report.correlationsByType == ["HKCorrelationTypeIdentifierBloodPressure": 1])
        #expect(report.correlationMemberRecords == 2)
        #expect(report.workoutsByType == ["HKWorkoutActivityTypeWalking": 1, "HKWorkoutActivityTypeCycling": 1])
        #expect(report.workoutRoutes == 2 && report.routePoints == 4)
        #expect(report.metadataEntries == 8 && report.cdaDocuments == 1 && report.activitySummaries == 1)
        // The second <WorkoutRoute> for the same file is listed once, with its line, and not stored.
        #expect(report.skipped.count == 1)
        let skip = try #require(report.skipped.first)
        #expect(skip.element == "WorkoutRoute" && skip.type == "HKWorkoutActivityTypeWalking")
        #expect(skip.file?.hasSuffix("export.xml → /workout-routes/route_2019-11-05_7.12am.gpx") == true)
        #expect((skip.line ?? 0) > 30 && skip.reason.contains("stored once"))
        #expect(report.warningsByReason == ["a missing route file (route stored without locations)": 1])
        #expect(report.documentsNew == 14)
        let walking = try #require(try await harness.store.get(WorkoutSample.self).first { $0.activityType.hasSuffix("Walking") })
        #expect(walking.routeIDs.count == 1)
        // export_cda.xml goes on after </ClinicalDocument>: read, and what libxml2 recovered from is reported.
        #expect(report.parserDiagnostics.contains { $0.hasPrefix("export_cda.xml") && $0.contains("Extra content") })
        let cda = try #require(try await harness.store.get(CDADocumentSample.self).first)
        #expect(cda.document.title == "Health Data Export")
        // A heart rate measured in India keeps +05:30 beside its instant.
        let pulse = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierHeartRate").first)
        #expect(pulse.sample.startUTCOffset == 19_800)
        #expect(pulse.sample.localStartDate?.exportText == "2019-10-21 14:01:37 +0530")
        #expect(pulse.sample.localStartDate?.iso8601 == "2019-10-21T14:01:37+05:30")
    }

    @Test func iOS14ElectrocardiogramsAndClinicalRecordsAreRead() async throws {
        let (report, harness) = try await DriftFixture.imported("ios14")
        defer { harness.remove() }
        #expect(report.recordsRead == 3 && report.heartbeatEntries == 3 && report.metadataEntries == 1)
        #expect(report.samplesByType == [
            "HKCategoryTypeIdentifierHandwashingEvent": 1, "HKQuantityTypeIdentifierVO2Max": 1,
            "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": 1,
        ])
        // The electrocardiogram CSVs are generic samples too, counted as `electrocardiograms`.
        #expect(report.genericSamplesByType.isEmpty)
        #expect(report.electrocardiograms == 2)
        #expect(report.clinicalRecordsByType == ["HKClinicalTypeIdentifierLabResultRecord": 1])
        #expect(report.skippedCount == 0 && report.documentsNew == 6)
        let ecgs = try await HealthStore(store: harness.store).samples(ofType: "HKDataTypeIdentifierElectrocardiogram")
        #expect(ecgs.count == 2)
        for ecg in ecgs {
            guard case .generic(let sample) = ecg else { Issue.record("an ECG is a generic sample"); continue }
            #expect(sample.element == "Electrocardiogram" && sample.unit == "µV")
            #expect(sample.value?.arrayValue?.count == 1024)
            #expect(sample.attributes["Sample Rate"] == .object(["unit": "Hz", "value": 512]))
            #expect(sample.attributes["Classification"] == "Sinus Rhythm")
            #expect(sample.device?.hardwareVersion == "Watch6,2")
            #expect(sample.duration == 2)
        }
        // The Portuguese file's decimal commas read as the English file's points.
        let values = ecgs.compactMap { sample -> [Double]? in
            if case .generic(let generic) = sample { generic.value?.arrayValue?.compactMap { $0.numberValue?.doubleValue } } else { nil }
        }
        #expect(values.count == 2 && values[0] == values[1] && values[0].contains { $0 > 1000 })
    }

    @Test func iOS15AudiogramIsKeptAsAGenericSampleWithItsPoints() async throws {
        let (report, harness) = try await DriftFixture.imported("ios15")
        defer { harness.remove() }
        #expect(report.recordsRead == 4)
        #expect(report.samplesByType == ["HKQuantityTypeIdentifierStepCount": 3, "HKQuantityTypeIdentifierAppleWalkingSteadiness": 1])
        #expect(report.genericSamplesByType == ["HKAudiogramTypeIdentifier": 1])
        #expect(report.correlationsByType == ["HKCorrelationTypeIdentifierFood": 1] && report.correlationMemberRecords == 1)
        #expect(report.skippedCount == 0 && report.documentsNew == 6)
        let audiogram = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKAudiogramTypeIdentifier").first)
        guard case .generic(let sample) = audiogram else { Issue.record("not generic"); return }
        #expect(sample.element == "Audiogram" && sample.children.count == 3)
        #expect(sample.children.first?["attributes"]?["frequencyValue"] == 250)
        #expect(sample.children.first?["attributes"]?["leftEarUnit"] == "dBHL")
        #expect(sample.source?.name == "Mimi Hearing" && sample.duration == 300)
    }

    @Test func iOS16BrokenDTDVerticalTabsAndStatisticsOnlyTotals() async throws {
        let (report, harness) = try await DriftFixture.imported("ios16")
        defer { harness.remove() }
        #expect(report.repairedDTDDeclarations == 1 && report.replacedControlCharacters == 1)
        #expect(report.recordsRead == 5 && report.heartbeatEntries == 2 && report.metadataEntries == 7)
        #expect(report.samplesByType == [
            "HKQuantityTypeIdentifierDietaryCaffeine": 1, "HKCategoryTypeIdentifierSleepAnalysis": 2,
            "HKQuantityTypeIdentifierBodyTemperature": 1, "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": 1,
        ])
        #expect(report.workoutsByType == ["HKWorkoutActivityTypeRunning": 1] && report.activitySummaries == 1)
        #expect(report.isComplete && report.skippedCount == 0 && report.documentsNew == 7)
        let run = try #require(try await harness.store.get(WorkoutSample.self).first)
        #expect(run.totalEnergyBurned == HealthQuantity(value: 412.5, unit: .kilocalorie))
        #expect(run.totalDistance == HealthQuantity(value: 7.05, unit: .kilometer))
        #expect(run.activities.count == 1 && run.activities.first?.statistics.count == 1)
        #expect(run.activities.first?.metadata["HKElevationAscended"] == .object(["unit": "cm", "value": 4520]))
        #expect(run.metadata["HKAverageMETs"] == .object(["unit": "kcal/hr·kg", "value": 10.1221]))
        let caffeine = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierDietaryCaffeine").first)
        #expect(caffeine.sample.source?.name == "Life sum")
        // Each sleep stage keeps the zone it was recorded in, returned as written, and HKTimeZone beside it.
        let sleep = try await HealthStore(store: harness.store).samples(ofType: "HKCategoryTypeIdentifierSleepAnalysis")
        #expect(sleep.map { $0.sample.localStartDate?.exportText } == ["2022-10-15 01:20:00 +0200", "2022-10-19 02:10:00 -0700"])
        #expect(sleep.map { $0.sample.localEndDate?.iso8601 } == ["2022-10-15T02:45:30+02:00", "2022-10-19T03:02:00-07:00"])
        #expect(sleep.map { $0.sample.metadata["HKTimeZone"] } == ["Europe/Paris", "America/Los_Angeles"])
        let temperature = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierBodyTemperature").first)
        #expect(temperature.sample.metadata["HKMetadataKeyTimeZone"] == "Asia/Tokyo")
        #expect(temperature.sample.localStartDate?.exportText == "2022-10-12 22:00:00 +0900")
    }

    @Test func iOS17SleepGoalsAreGenericAndWhatCannotBeKeptIsListedOnceWithItsLine() async throws {
        let (report, harness) = try await DriftFixture.imported("ios17")
        defer { harness.remove() }
        #expect(report.recordsRead == 8)
        #expect(report.samplesByType == [
            "HKCategoryTypeIdentifierSleepAnalysis": 1, "HKQuantityTypeIdentifierAppleSleepingWristTemperature": 1,
            "HKQuantityTypeIdentifierPhysicalEffort": 1, "HKQuantityTypeIdentifierCyclingPower": 1,
        ])
        #expect(report.genericSamplesByType == ["HKDataTypeSleepDurationGoal": 2, "HKQuantityTypeIdentifierBodyMass": 1])
        #expect(report.skippedByType == ["HKQuantityTypeIdentifierStepCount": 1, "HKClinicalTypeIdentifierImmunizationRecord": 1])
        #expect(report.skipped.map(\.reason) == ["an unreadable startDate", "a missing FHIR resource file"])
        #expect(report.skipped.allSatisfy { ($0.line ?? 0) > 10 && $0.file != nil })
        #expect(Set(report.skipped.compactMap(\.line)).count == 2)
        #expect(report.documentsNew == 7)
        // Every record read is a typed sample, a generic one, or listed as skipped.
        #expect(report.recordsRead == report.samplesByType.values.reduce(0, +) + report.genericSamplesByType.values.reduce(0, +)
            + (report.skippedByType["HKQuantityTypeIdentifierStepCount"] ?? 0))
        let goals = try await HealthStore(store: harness.store).samples(ofType: "HKDataTypeSleepDurationGoal")
        let values = goals.compactMap { sample -> JSONValue? in if case .generic(let goal) = sample { goal.value } else { nil } }
        #expect(values == [8, 7.5], "typed values, not strings")
        if case .generic(let goal) = goals.first {
            #expect(goal.unit == "hr" && goal.reason == "a type the store does not model")
            #expect(goal.attributes["sourceVersion"] == "17.0.3" && goal.attributes["value"] == 8)
            #expect(goal.attributes["startDate"] == "2023-10-01T21:00:02+02:00")
        }
        let weight = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierBodyMass").first)
        guard case .generic(let kept) = weight else { Issue.record("a weight that is not a number stays generic"); return }
        #expect(kept.value == "seventy" && kept.reason == "a quantity whose value is not a number")
    }

    @Test func iOS18RecordsInsideWorkoutsZonesAndNonHealthKitTypesAreKept() async throws {
        let (report, harness) = try await DriftFixture.imported("ios18")
        defer { harness.remove() }
        #expect(report.recordsRead == 3)
        #expect(report.samplesByType == [
            "HKQuantityTypeIdentifierAppleSleepingBreathingDisturbances": 1, "HKCategoryTypeIdentifierSleepApneaEvent": 1,
        ])
        #expect(report.genericSamplesByType == ["MoodDiaryDailyScore": 1])
        #expect(report.workoutsByType == ["HKWorkoutActivityTypeCycling": 1] && report.workoutMemberRecords == 1)
        #expect(report.workoutRoutes == 1 && report.routePoints == 3 && report.metadataEntries == 4)
        #expect(report.skippedCount == 0 && report.documentsNew == 6)
        let ride = try #require(try await harness.store.get(WorkoutSample.self).first)
        #expect(ride.totalDistance == HealthQuantity(value: 2.4924, unit: .kilometer))
        #expect(ride.totalEnergyBurned == HealthQuantity(value: 117.119, unit: .kilocalorie))
        #expect(ride.otherElements.count == 1)
        #expect(ride.otherElements.first?["element"] == "WorkoutZoneGroup")
        #expect(ride.otherElements.first?["children"]?.arrayValue?.count == 3)
        let effort = try #require(try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierEstimatedWorkoutEffortScore").first)
        guard case .quantity(let score) = effort else { Issue.record("the effort score is a quantity"); return }
        #expect(score.value == 4 && score.unit == "appleEffortScore")
        let mood = try #require(try await HealthStore(store: harness.store).samples(ofType: "MoodDiaryDailyScore").first)
        guard case .generic(let kept) = mood else { Issue.record("not generic"); return }
        #expect(kept.typeIdentifier == "MoodDiaryDailyScore" && kept.value == 4 && kept.metadata["entry"] == "calm")
    }
}
