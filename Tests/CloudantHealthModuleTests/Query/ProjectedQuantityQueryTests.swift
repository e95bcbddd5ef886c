import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

@testable import CloudantHealthModule

/// Quantity samples are left out of the sample index and read from the quantity projection; these tests hold
/// the projection's answers to Mango's over an index of every sample, and the index to its partial filter.
@Suite("Quantity samples read from the projection")
struct ProjectedQuantityQueryTests {
    private let start = TestDates.june1
    private let types = ["HKQuantityTypeIdentifierHeartRate", "HKQuantityTypeIdentifierStepCount"]
    private static let everySample = IndexDefinition(
        name: "every-sample", designDocument: "reference",
        fields: [.ascending("entityType"), .ascending("typeIdentifier"), .ascending("startDate")])

    /// 60 samples of each type over 8 distinct starts (so most starts are shared), with ids in no relation
    /// to their starts or insertion order, and ends that differ within a start (the projection's own tie
    /// order), plus one sleep sample.
    private func seeded() async throws -> HealthTestStore {
        let harness = try HealthTestStore()
        var random = SplitMix64(seed: 11)
        var samples: [QuantitySample] = []
        for type in types {
            for _ in 0..<60 {
                let hour = Double(random.next() % 8)
                let uuid = String(format: "%08X-0000-4000-8000-%012llX", UInt32(truncatingIfNeeded: random.next()), random.next() % 1_000_000_000_000)
                samples.append(
                    QuantitySample(
                        uuid: uuid, typeIdentifier: type, value: Double(random.next() % 100), unit: "count",
                        startDate: start.addingTimeInterval(hour * 3600),
                        endDate: start.addingTimeInterval(hour * 3600 + Double(random.next() % 600)),
                        startUTCOffset: TestDates.pacific))
            }
        }
        try await harness.store.add(samples)
        try await harness.store.add([CategorySample(
            uuid: "CA000000-0000-4000-8000-000000000001", typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis",
            value: 1, startDate: start, endDate: start.addingTimeInterval(60))])
        try await harness.store.createIndex(Self.everySample)
        return harness
    }

    private func hours(_ value: Double) -> Date { start.addingTimeInterval(value * 3600) }

    @Test func everyPageFromTheProjectionEqualsMangoOverAnIndexOfEverySample() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let health = HealthStore(store: harness.store)
        let ranges: [(String, [QueryComponent])] = [
            ("none", []),
            ("from 2h", [.simpleComponent("startDate", .greaterThanOrEqual, hours(2))]),
            ("after 2h before 6h", [
                .simpleComponent("startDate", .greaterThan, hours(2)), .simpleComponent("startDate", .lessThan, hours(6)),
            ]),
            ("through 5h", [.simpleComponent("startDate", .lessThanOrEqual, hours(5))]),
            ("at 3h", [.simpleComponent("startDate", .equal, hours(3))]),
        ]
        let sorts: [[(String, Bool)]] = [[], [("startDate", false)], [("startDate", true)], [("typeIdentifier", true), ("startDate", true)]]
        let pages: [(skip: Int, limit: Int?)] = [(0, nil), (0, 1), (3, 5), (7, 9), (20, nil), (0, 0), (0, 500)]
        var compared = 0
        for type in types {
            for (rangeName, range) in ranges {
                for sort in sorts {
                    for page in pages {
                        var query = health.collection(healthKitSampleType: .quantity).where(typeIdentifier: type)
                        for component in range { query = query.where(component) }
                        for (field, descending) in sort { query = descending ? query.sort(descending: field) : query.sort(ascending: field) }
                        query = query.skip(page.skip)
                        if let limit = page.limit { query = query.limit(limit) }
                        let label = "\(type) \(rangeName) sort \(sort.map { "\($0.0) \($0.1 ? "desc" : "asc")" }) skip \(page.skip) limit \(String(describing: page.limit))"
                        #expect(ProjectedQuantityQuery(query) != nil, "\(label) is not read from the projection")
                        var reference = try query.request
                        reference.useIndex = [Self.everySample.designDocument!, Self.everySample.name]
                        let expected = try await harness.store.find(reference).docs.compactMap { $0["_id"]?.stringValue }
                        let projected = try await query.getSamples().map(\.id)
                        #expect(projected == expected, "\(label)")
                        compared += 1
                    }
                }
            }
        }
        #expect(compared == types.count * ranges.count * sorts.count * pages.count)
    }

    @Test func samplesOfATypeComeFromTheProjectionWithTiesInIDOrder() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let window = DateInterval(start: hours(1), end: hours(6))
        let found = try await HealthStore(store: harness.store).samples(ofType: types[0], in: window)
        let sorted = found.sorted { a, b in
            a.startDate != b.startDate ? a.startDate < b.startDate : a.id.utf8.lexicographicallyPrecedes(b.id.utf8)
        }
        #expect(found.map(\.id) == sorted.map(\.id))
        #expect(!found.isEmpty && found.allSatisfy { window.start <= $0.startDate && $0.startDate < window.end })
        var reference = try HealthStore(store: harness.store).collection(healthKitSampleType: .quantity)
            .where(typeIdentifier: types[0]).where(startDateIn: window).request
        reference.useIndex = [Self.everySample.designDocument!, Self.everySample.name]
        #expect(try await harness.store.find(reference).docs.count == found.count)
    }

    @Test func queriesTheProjectionCannotAnswerExactlyRunAsMango() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let quantities = HealthStore(store: harness.store).collection(healthKitSampleType: .quantity)
        let typed = quantities.where(typeIdentifier: types[0])
        let offsetDate = JSONValue.string("2024-06-01T15:00:00-07:00")
        let notProjected: [(String, CollectionQuery)] = [
            ("no type", quantities.where(.simpleComponent("startDate", .greaterThan, hours(1)))),
            ("another field", typed.where(field: "value", value: 5)),
            ("an $or", typed.where(.combinedComponent(
                .simpleComponent("startDate", .lessThan, hours(1)), .or, .simpleComponent("startDate", .greaterThan, hours(6))))),
            ("a date written with an offset", typed.where(.simpleComponent("startDate", .greaterThan, offsetDate))),
            ("a $ne on the start", typed.where(.simpleComponent("startDate", .notEqual, hours(1)))),
            ("a sort by value", typed.sort(ascending: "value")),
            ("mixed directions", typed.sort(ascending: "typeIdentifier").sort(descending: "startDate")),
            ("a sort by type alone", typed.sort(ascending: "typeIdentifier")),
            ("chosen fields", HealthStore(store: harness.store).collection(healthKitSampleType: .quantity, fields: ["_id"])
                .where(typeIdentifier: types[0])),
            ("a named index", typed.useIndex(designDocument: "reference")),
            ("a raw selector", typed.where(rawSelector: ["value": ["$gt": 3]])),
            ("two types", typed.where(typeIdentifier: types[1])),
        ]
        for (label, query) in notProjected {
            #expect(ProjectedQuantityQuery(query) == nil, "\(label) should run as Mango")
            // Whatever path, the samples are Mango's.
            guard query.fields == nil else { continue }
            let expected = try await harness.store.find(try query.request).docs.compactMap { $0["_id"]?.stringValue }
            #expect(try await query.getSamples().map(\.id) == expected, "\(label)")
        }
        #expect(try await typed.where(typeIdentifier: types[1]).getSamples().isEmpty)
    }

    @Test func theSampleIndexHoldsNoQuantityAndServesTheOtherFamiliesByName() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        let index = try #require(try await harness.store.indexes().first { $0.name == HealthPlugin.sampleIndex.name })
        #expect(index.partialFilterSelector == ["entityType": ["$ne": "HKQuantitySample"]])
        let named = [HealthPlugin.sampleIndex.designDocument!, HealthPlugin.sampleIndex.name]
        let quantities = FindRequest(
            selector: try MangoSelector(["entityType": "HKQuantitySample", "typeIdentifier": .string(types[0]),
                                         "startDate": ["$gte": "2000-01-01T00:00:00.000Z"]]),
            limit: 1000, useIndex: named)
        #expect(try await harness.store.find(quantities).docs.isEmpty)
        var other = quantities
        other.useIndex = [Self.everySample.designDocument!, Self.everySample.name]
        #expect(try await harness.store.find(other).docs.count == 60)

        let sleep = try HealthStore(store: harness.store).collection(healthKitSampleType: .category)
            .where(typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis")
            .where(startDateIn: DateInterval(start: start, duration: 3600))
        let plan = try await harness.store.explain(try sleep.request)
        #expect(plan["index"]?["name"] == .string(HealthPlugin.sampleIndex.name))
        #expect(try await sleep.getSamples().map(\.id) == ["CA000000-0000-4000-8000-000000000001"])
    }

    @Test func aSampleIndexOverEverySampleBecomesPartialWhenTheStoreOpensWithThePlugin() async throws {
        let harness = try await seeded()
        defer { harness.remove() }
        try await harness.store.createIndex(HealthPlugin.sampleIndexOverEverySample)
        let named = [HealthPlugin.sampleIndex.designDocument!, HealthPlugin.sampleIndex.name]
        let quantities = FindRequest(
            selector: try MangoSelector(["entityType": "HKQuantitySample", "typeIdentifier": .string(types[1]),
                                         "startDate": ["$gte": "2000-01-01T00:00:00.000Z"]]),
            limit: 1000, useIndex: named)
        #expect(try await harness.store.find(quantities).docs.count == 60)

        let reopened = try DocumentStore.open(
            name: "health", in: StoreDirectory(path: harness.folder.path),
            options: StoreOptions(registry: try EntityRegistry(plugins: [HealthPlugin()])))
        let index = try #require(try await reopened.indexes().first { $0.name == HealthPlugin.sampleIndex.name })
        #expect(index.partialFilterSelector != nil)
        #expect(try await reopened.find(quantities).docs.isEmpty)
        let steps = try await HealthStore(store: reopened).samples(ofType: types[1])
        #expect(steps.count == 60)
        #expect(try await HealthStore(store: reopened).samples(ofType: "HKCategoryTypeIdentifierSleepAnalysis").count == 1)
    }
}
