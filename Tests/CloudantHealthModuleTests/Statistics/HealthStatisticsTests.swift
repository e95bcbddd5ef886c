import CloudantCore
import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Source-aware statistics")
struct HealthStatisticsTests {
    private static let watch = (HealthSource(name: "Jane’s Apple Watch"), HealthDevice(name: "Apple Watch", model: "Watch", hardwareVersion: "Watch6,2"))
    private static let phone = (HealthSource(name: "Jane’s iPhone"), HealthDevice(name: "iPhone", model: "iPhone", hardwareVersion: "iPhone15,2"))
    private static let nine = Date(timeIntervalSince1970: 1_717_232_400)  // 2024-06-01 09:00 UTC

    private static func steps(
        _ source: (HealthSource, HealthDevice), from minute: Int, minutes: Int, value: Double,
        type: String = "HKQuantityTypeIdentifierStepCount", unit: String = "count"
    ) -> QuantitySample {
        let start = nine.addingTimeInterval(Double(minute) * 60)
        return QuantitySample(
            uuid: UUID().uuidString, typeIdentifier: type, value: value, unit: unit, startDate: start,
            endDate: start.addingTimeInterval(Double(minutes) * 60), startUTCOffset: 0, source: source.0, device: source.1)
    }

    private static let hour = DateInterval(start: nine, duration: 3600)

    /// The Watch counted the hour in six samples, the iPhone the same walk in four: 600 steps each.
    private static let sameWalk =
        (0..<6).map { steps(watch, from: $0 * 10, minutes: 10, value: 100) }
        + (0..<4).map { steps(phone, from: $0 * 15, minutes: 15, value: 150) }

    @Test func twoOverlappingSourcesGiveTheSingleSourceTotalNotTheDouble() throws {
        let statistics = try HealthStatisticsCalculator.statistics(
            of: Self.sameWalk, typeIdentifier: "HKQuantityTypeIdentifierStepCount", in: Self.hour, by: .hour)
        #expect(statistics.aggregation == .cumulative)
        #expect(statistics.total == 600)
        #expect(statistics.buckets.count == 1 && statistics.buckets[0].sum == 600)
        #expect(statistics.buckets[0].sources == ["Jane’s Apple Watch"], "the Watch counts first by default")
        #expect(statistics.buckets[0].sampleCount == 6)
        #expect(statistics.sources == ["Jane’s Apple Watch"])
        // Naming the iPhone first counts its samples instead: the same total.
        let phoneFirst = try HealthStatisticsCalculator.statistics(
            of: Self.sameWalk, typeIdentifier: "HKQuantityTypeIdentifierStepCount", in: Self.hour, by: .hour,
            sourcePriority: HealthSourcePriority(["Jane’s iPhone"]))
        #expect(phoneFirst.total == 600 && phoneFirst.buckets[0].sources == ["Jane’s iPhone"])
    }

    @Test func aLowerSourceFillsInWhereTheHigherOneHasNothingProrated() throws {
        // The Watch is off for the last 20 minutes; the iPhone's 15-minute samples cover it.
        let samples = (0..<4).map { Self.steps(Self.watch, from: $0 * 10, minutes: 10, value: 100) }
            + (0..<4).map { Self.steps(Self.phone, from: $0 * 15, minutes: 15, value: 150) }
        let statistics = try HealthStatisticsCalculator.statistics(
            of: samples, typeIdentifier: "HKQuantityTypeIdentifierStepCount", in: Self.hour, by: .hour)
        // 400 from the Watch; from the iPhone, 5 of 15 minutes of its third sample and all of its fourth.
        // Prorating 5 of 15 minutes is not exact in binary floating point.
        #expect(abs((statistics.total ?? 0) - (400 + 50 + 150)) < 1e-9)
        #expect(statistics.buckets[0].sources == ["Jane’s Apple Watch", "Jane’s iPhone"])
    }

    @Test func aSampleAcrossABucketBoundaryIsSharedByTheTimeInEach() throws {
        let samples = [Self.steps(Self.phone, from: 45, minutes: 30, value: 300)]
        let statistics = try HealthStatisticsCalculator.statistics(
            of: samples, typeIdentifier: "HKQuantityTypeIdentifierStepCount",
            in: DateInterval(start: Self.nine, duration: 7200), by: .hour)
        #expect(statistics.buckets.map(\.sum) == [150, 150])
        #expect(statistics.buckets.map(\.sampleCount) == [1, 1])
    }

    @Test func discreteTypesGetMinimumAverageAndMaximumFromEverySource() throws {
        let rates = [(Self.watch, 0, 62.0), (Self.watch, 20, 70.0), (Self.phone, 30, 90.0), (Self.watch, 70, 55.0)].map {
            Self.steps($0.0, from: $0.1, minutes: 0, value: $0.2, type: "HKQuantityTypeIdentifierHeartRate", unit: "count/min")
        }
        let statistics = try HealthStatisticsCalculator.statistics(
            of: rates, typeIdentifier: "HKQuantityTypeIdentifierHeartRate", in: DateInterval(start: Self.nine, duration: 7200),
            by: .hour, unit: .countPerMinute)
        #expect(statistics.aggregation == .discrete && statistics.total == nil)
        #expect(statistics.buckets[0].minimum == 62 && statistics.buckets[0].maximum == 90)
        #expect(statistics.buckets[0].average == (62 + 70 + 90) / 3.0 && statistics.buckets[0].sampleCount == 3)
        #expect(statistics.buckets[1].average == 55)
    }

    @Test func bucketsFollowTheCalendarOfTheTimeZoneAcrossADaylightSavingChange() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        // 2024-03-30 00:00 to 2024-04-02 00:00 in Paris: the clocks go forward on the 31st.
        let start = Date(timeIntervalSince1970: 1_711_753_200)
        let end = Date(timeIntervalSince1970: 1_712_008_800)
        let statistics = try HealthStatisticsCalculator.statistics(
            of: [], typeIdentifier: "HKQuantityTypeIdentifierStepCount", in: DateInterval(start: start, end: end), by: .day,
            timeZone: paris)
        #expect(statistics.buckets.map { $0.end.timeIntervalSince($0.start) / 3600 } == [24, 23, 24])
        #expect(statistics.buckets.allSatisfy { $0.sum == 0 && $0.sources.isEmpty })
        let weeks = try HealthStatisticsCalculator.statistics(
            of: [], typeIdentifier: "HKQuantityTypeIdentifierStepCount", in: DateInterval(start: start, end: end), by: .week,
            timeZone: paris)
        // The week of Monday 25 March, cut at the start, then the week of Monday 1 April, cut at the end.
        #expect(weeks.buckets.count == 2 && weeks.buckets[1].start == Date(timeIntervalSince1970: 1_711_922_400))
    }

    @Test func valuesAreConvertedToTheUnitAskedForAndAnIncompatibleUnitIsATypedError() throws {
        let distances = [
            QuantitySample(uuid: "a", typeIdentifier: "HKQuantityTypeIdentifierDistanceWalkingRunning", value: 1.5, unit: "km",
                           startDate: Self.nine, endDate: Self.nine.addingTimeInterval(600), source: Self.phone.0),
            QuantitySample(uuid: "b", typeIdentifier: "HKQuantityTypeIdentifierDistanceWalkingRunning", value: 500, unit: "m",
                           startDate: Self.nine.addingTimeInterval(600), endDate: Self.nine.addingTimeInterval(900), source: Self.phone.0),
        ]
        let metres = try HealthStatisticsCalculator.statistics(
            of: distances, typeIdentifier: "HKQuantityTypeIdentifierDistanceWalkingRunning", in: Self.hour, by: .hour, unit: .meter)
        #expect(metres.unit == "m" && metres.total == 2000)
        #expect(throws: CloudantError.self) {
            try HealthStatisticsCalculator.statistics(
                of: distances, typeIdentifier: "HKQuantityTypeIdentifierDistanceWalkingRunning", in: Self.hour, by: .hour,
                unit: .kilocalorie)
        }
    }

    @Test func theStoreMergesAGeneratedExportsTwoStepCountingSourcesIntoOneTotal() async throws {
        let export = try await GeneratedHealthExport.variant(["--second-source"], generator: ["--records", "1500", "--seed", "21", "--route-points", "3"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        let report = try await AppleHealthImporter(store: harness.store).importExport(at: export.root)
        let watchRecords = try #require(export.expected["second_source"]?["records"]?.numberValue?.int64Value)
        #expect(report.samplesByType["HKQuantityTypeIdentifierStepCount"]
            == export.expected["records_by_type"]?["HKQuantityTypeIdentifierStepCount"]?.numberValue?.int64Value.map(Int.init))
        let steps = try await HealthStore(store: harness.store).samples(ofType: "HKQuantityTypeIdentifierStepCount").compactMap { sample -> QuantitySample? in
            if case .quantity(let quantity) = sample { quantity } else { nil }
        }
        let phone = steps.filter { $0.source?.name.contains("iPhone") == true }
        #expect(steps.count - phone.count == Int(watchRecords) && phone.count == Int(watchRecords))
        let start = try #require(steps.map(\.startDate).min())
        let end = try #require(steps.map(\.endDate).max()).addingTimeInterval(1)
        let statistics = try await HealthStore(store: harness.store).statistics(
            ofType: "HKQuantityTypeIdentifierStepCount", from: start, to: end, by: .month)
        let single = phone.reduce(0) { $0 + $1.value }
        #expect(abs((statistics.total ?? 0) - single) < 1e-6, "the single-source total, not \(2 * single)")
        #expect(statistics.sources == ["Jane’s Apple Watch"], "the Watch's copy of every walk counts, the iPhone's none")
    }

    @Test func statisticsAreTheSameFromTheProjectionAndFromTheDocumentsOfAStoreThatHasNone() async throws {
        let export = try await GeneratedHealthExport.variant(["--second-source"], generator: ["--records", "1500", "--seed", "22", "--route-points", "3"])
        defer { try? FileManager.default.removeItem(at: export.root) }
        let harness = try HealthTestStore()
        defer { harness.remove() }
        _ = try await AppleHealthImporter(store: harness.store).importExport(at: export.root)
        #expect(try await harness.store.projectionNames().contains(HealthPlugin.quantityProjection.name))
        // The same documents in a store that never declared the projection (a server's, a replica), read with
        // the plugin's registry but read-only, so nothing is declared: the documents are decoded instead.
        let plainFolder = harness.folder.appendingPathComponent("plain")
        let plain = try DocumentStore.open(name: "plain", in: StoreDirectory(path: plainFolder.path))
        let documents = try await harness.store.allDocs(AllDocsOptions(includeDocs: true)).rows.compactMap { $0["doc"] }
        _ = try await plain.bulkDocs(documents, newEdits: false)
        let reader = try DocumentStore.open(
            name: "plain", in: StoreDirectory(path: plainFolder.path),
            options: StoreOptions(registry: try EntityRegistry(plugins: [HealthPlugin()]), readOnly: true))
        #expect(try await reader.projectionNames().isEmpty)
        let from = Date(timeIntervalSince1970: 1_680_000_000)
        let to = Date(timeIntervalSince1970: 1_720_000_000)
        for (type, interval) in [("HKQuantityTypeIdentifierStepCount", HealthStatisticsInterval.week),
                                 ("HKQuantityTypeIdentifierHeartRate", .day)] {
            let projected = try await HealthStore(store: harness.store).statistics(ofType: type, from: from, to: to, by: interval)
            let decoded = try await HealthStore(store: reader).statistics(ofType: type, from: from, to: to, by: interval)
            #expect(projected.buckets.map(\.sampleCount) == decoded.buckets.map(\.sampleCount), "\(type)")
            #expect(projected.sources == decoded.sources && projected.unit == decoded.unit)
            for (a, b) in zip(projected.buckets, decoded.buckets) {
                #expect(abs((a.sum ?? 0) - (b.sum ?? 0)) < 1e-6 && abs((a.average ?? 0) - (b.average ?? 0)) < 1e-9)
                #expect(a.minimum == b.minimum && a.maximum == b.maximum && a.sources == b.sources)
            }
            #expect(projected.buckets.reduce(0) { $0 + $1.sampleCount } > 0, "\(type) has samples in the range")
        }
    }
}
