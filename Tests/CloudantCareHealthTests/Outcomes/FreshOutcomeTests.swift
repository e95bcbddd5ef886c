import CloudantCareHealth
import Foundation
import Testing

@Suite("Outcomes follow the stored samples")
struct FreshOutcomeTests {
    @Test func aDeletedSampleLeavesTheNextReadsOutcome() async throws {
        let fixture = try BridgeFixture(zone: "Europe/Paris")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 4, 1), linkage: BridgeFixture.stepLinkage())])
        let morning = fixture.sample("morning", value: 400, start: try fixture.date(2024, 4, 2, 8), end: try fixture.date(2024, 4, 2, 9))
        let evening = fixture.sample("evening", value: 600, start: try fixture.date(2024, 4, 2, 18), end: try fixture.date(2024, 4, 2, 19))
        let stored = try await fixture.documents.add([morning, evening])
        let day = try fixture.days(from: try fixture.date(2024, 4, 2), count: 1)
        #expect(try await fixture.careHealth.fetchOutcomes(for: "steps", in: day).map(\.total) == [1000])

        _ = try await fixture.documents.delete([stored[1]])
        let after = try await fixture.careHealth.fetchOutcomes(for: "steps", in: day)
        #expect(after.map(\.total) == [400])
        #expect(after.map(\.sampleUUIDs) == [[["morning"]]])

        _ = try await fixture.documents.delete([stored[0]])
        #expect(try await fixture.careHealth.fetchEvents(taskID: "steps", in: day).map(\.outcome) == [nil])
    }

    @Test func aSampleReplicatedInWithAnOffsetSpellingCountsAtItsInstantAndItsConflictLoserDoesNot() async throws {
        let fixture = try BridgeFixture(zone: "Europe/Paris")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 4, 1), linkage: BridgeFixture.stepLinkage())])
        // 23:30–00:30 Paris time written by a peer in UTC+02:00 spelling: half of it falls on each day.
        func document(_ rev: String, value: Int) -> JSONValue {
            [
                "_id": "peer", "_rev": .string(rev), "entityType": "HKQuantitySample", "uuid": "peer",
                "typeIdentifier": .string(BridgeFixture.steps), "value": .number(.integer(Int64(value))), "unit": "count",
                "startDate": "2024-04-02T23:30:00+02:00", "endDate": "2024-04-03T00:30:00.000+02:00",
            ]
        }
        let written = try await fixture.documents.bulkDocs(
            [document("1-" + String(repeating: "a", count: 32), value: 999), document("1-" + String(repeating: "b", count: 32), value: 100)],
            newEdits: false)
        #expect(written.isEmpty)
        let days = try fixture.days(from: try fixture.date(2024, 4, 2), count: 2)
        #expect(try await fixture.careHealth.fetchOutcomes(for: "steps", in: days).map(\.total) == [50, 50])
    }

    @Test func aChangedSampleValueShowsAtTheNextRead() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 4, 1), linkage: BridgeFixture.stepLinkage())])
        var sample = try await fixture.documents.add([fixture.sample("s", value: 10, start: try fixture.date(2024, 4, 2, 8))])[0]
        let day = try fixture.days(from: try fixture.date(2024, 4, 2), count: 1)
        #expect(try await fixture.careHealth.fetchOutcomes(for: "steps", in: day).map(\.total) == [10])
        sample.value = 25
        _ = try await fixture.documents.update([sample])
        #expect(try await fixture.careHealth.fetchOutcomes(for: "steps", in: day).map(\.total) == [25])
    }

    @Test func aTaskVersionThatChangesTheLinkageMidRangeComputesEachEventWithItsVersionsLink() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        let first = fixture.dailyTask(start: try fixture.date(2024, 3, 1), linkage: BridgeFixture.stepLinkage())
        _ = try await fixture.care.add([first])
        var second = first
        second.healthKitLinkage = HealthKitLinkage(
            quantityIdentifier: BridgeFixture.energy, quantityType: .cumulative, unitString: "kJ")
        second.task.versioned.effectiveDate = try fixture.date(2024, 3, 3)
        _ = try await fixture.care.update([second])
        var samples: [QuantitySample] = []
        for day in 1...4 {
            samples.append(fixture.sample("steps-\(day)", value: Double(day * 1000), start: try fixture.date(2024, 3, day, 10)))
            samples.append(fixture.sample("kcal-\(day)", BridgeFixture.energy, value: Double(day * 100), unit: "kcal",
                                          start: try fixture.date(2024, 3, day, 11)))
        }
        _ = try await fixture.documents.add(samples)

        let events = try await fixture.careHealth.fetchEvents(taskID: "steps", in: try fixture.days(from: try fixture.date(2024, 3, 1), count: 4))
        #expect(events.map(\.task.healthKitLinkage.quantityIdentifier) == [
            BridgeFixture.steps, BridgeFixture.steps, BridgeFixture.energy, BridgeFixture.energy,
        ])
        let totals = events.map { $0.outcome?.total ?? -1 }
        #expect(totals[0] == 1000 && totals[1] == 2000)
        #expect(abs(totals[2] - 300 * 4.184) < 1e-9 && abs(totals[3] - 400 * 4.184) < 1e-9)
        #expect(events.map { $0.outcome?.values.first?.units } == ["count", "count", "kJ", "kJ"])
        #expect(events.map { $0.outcome?.sampleUUIDs } == [[["steps-1"]], [["steps-2"]], [["kcal-3"]], [["kcal-4"]]])
    }
}
