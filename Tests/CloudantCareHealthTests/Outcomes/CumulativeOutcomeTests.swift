import CloudantCareHealth
import Foundation
import Testing

@Suite("Cumulative outcomes from samples")
struct CumulativeOutcomeTests {
    /// 23- and 25-hour days in two zones: one 10-minute sample of 100 steps at the start of every local hour.
    @Test(arguments: [
        ("Europe/Paris", 2024, 3, 31, 23), ("Europe/Paris", 2024, 10, 27, 25),
        ("America/New_York", 2024, 3, 10, 23), ("America/New_York", 2024, 11, 3, 25),
    ])
    func aDSTDaysSumCoversEveryHourOfThatDay(zone: String, year: Int, month: Int, day: Int, hours: Int) async throws {
        let fixture = try BridgeFixture(zone: zone)
        let dayStart = try fixture.date(year, month, day)
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(year, month, day - 2), linkage: BridgeFixture.stepLinkage())])
        // Real hours from local midnight: 23 or 25 of them before the next local midnight.
        let samples = (0..<(hours + 1)).map { hour in
            fixture.sample("S\(hour)", value: 100, start: dayStart.addingTimeInterval(Double(hour) * 3600),
                           end: dayStart.addingTimeInterval(Double(hour) * 3600 + 600))
        }
        _ = try await fixture.documents.add(samples)

        let events = try await fixture.careHealth.fetchEvents(taskID: "steps", in: try fixture.days(from: dayStart, count: 1))
        let event = try #require(events.first)
        #expect(events.count == 1)
        #expect(event.scheduleEvent.end.timeIntervalSince(event.scheduleEvent.start) + 1 == Double(hours) * 3600)
        let outcome = try #require(event.outcome)
        #expect(outcome.values.map(\.numericValue) == [Double(hours) * 100])
        #expect(outcome.values.first?.units == "count")
        #expect(Set(outcome.sampleUUIDs[0]) == Set((0..<hours).map { "S\($0)" }))
        // The sample at the next midnight is the next day's.
        let next = try await fixture.careHealth.fetchOutcomes(
            for: "steps", in: try fixture.days(from: dayStart.addingTimeInterval(Double(hours) * 3600), count: 1))
        #expect(next.map(\.total) == [100])
    }

    @Test func aSampleStraddlingMidnightIsSplitInProportionToItsOverlap() async throws {
        let fixture = try BridgeFixture(zone: "Europe/Paris")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 6, 1), linkage: BridgeFixture.stepLinkage())])
        _ = try await fixture.documents.add([
            // 23:30 → 00:30: half on each day.
            fixture.sample("straddle", value: 60, start: try fixture.date(2024, 6, 1, 23, 30), end: try fixture.date(2024, 6, 2, 0, 30)),
            // 23:45 → 00:00 exactly: all on the first day.
            fixture.sample("ends-at-midnight", value: 15, start: try fixture.date(2024, 6, 1, 23, 45), end: try fixture.date(2024, 6, 2)),
            // An instant at midnight: the second day's.
            fixture.sample("instant", value: 7, start: try fixture.date(2024, 6, 2)),
            fixture.sample("inside", value: 1000, start: try fixture.date(2024, 6, 1, 9), end: try fixture.date(2024, 6, 1, 10)),
        ])
        let events = try await fixture.careHealth.fetchEvents(taskID: "steps", in: try fixture.days(from: try fixture.date(2024, 6, 1), count: 2))
        let totals: [Double?] = events.map { $0.outcome?.total }
        #expect(totals == [1045, 37])
        let expected: [Set<String>] = [["inside", "straddle", "ends-at-midnight"], ["straddle", "instant"]]
        let found: [Set<String>] = events.map { Set($0.outcome?.sampleUUIDs.first ?? []) }
        #expect(found == expected)
    }

    @Test func aSampleStartingBeforeTheRangeStillCountsItsShare() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 1, 1), linkage: BridgeFixture.stepLinkage())])
        // Three days long, starting two days before the queried day: a third of it is that day's.
        _ = try await fixture.documents.add([
            fixture.sample("long", value: 300, start: try fixture.date(2024, 1, 8), end: try fixture.date(2024, 1, 11))
        ])
        let outcomes = try await fixture.careHealth.fetchOutcomes(for: "steps", in: try fixture.days(from: try fixture.date(2024, 1, 10), count: 1))
        #expect(outcomes.map(\.total) == [100])
    }

    @Test func anEventWithoutSamplesHasNoOutcome() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 1, 1), linkage: BridgeFixture.stepLinkage())])
        _ = try await fixture.documents.add([
            fixture.sample("other-type", BridgeFixture.energy, value: 5, unit: "kcal", start: try fixture.date(2024, 1, 2, 8))
        ])
        let events = try await fixture.careHealth.fetchEvents(taskID: "steps", in: try fixture.days(from: try fixture.date(2024, 1, 2), count: 1))
        #expect(events.count == 1)
        #expect(events.first?.outcome == nil)
    }
}

@Suite("Cumulative outcomes across sources")
struct SourceMergeOutcomeTests {
    @Test func timeTwoSourcesBothCoverCountsOnceFromTheWatchAndThePhoneFillsIn() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 9, 1), linkage: BridgeFixture.stepLinkage())])
        func sample(_ uuid: String, _ source: String, _ value: Double, _ from: Date, _ to: Date) -> QuantitySample {
            var made = fixture.sample(uuid, value: value, start: from, end: to)
            made.source = HealthSource(name: source)
            return made
        }
        _ = try await fixture.documents.add([
            // The walk, counted by both: 10:00–10:30 on the watch, 10:00–11:00 on the phone.
            sample("watch", "Jane's Apple Watch", 3000, try fixture.date(2024, 9, 2, 10), try fixture.date(2024, 9, 2, 10, 30)),
            sample("phone", "Jane's iPhone", 4000, try fixture.date(2024, 9, 2, 10), try fixture.date(2024, 9, 2, 11)),
            // Only the phone was there: it counts in full.
            sample("phone-alone", "Jane's iPhone", 500, try fixture.date(2024, 9, 2, 15), try fixture.date(2024, 9, 2, 15, 10)),
        ])
        let outcome = try #require(
            try await fixture.careHealth.fetchOutcomes(for: "steps", in: try fixture.days(from: try fixture.date(2024, 9, 2), count: 1)).first)
        // The watch's 3000, the phone's uncovered half hour (2000), and the phone alone (500).
        #expect(outcome.total == 5500)
        #expect(outcome.sampleUUIDs == [["phone", "watch", "phone-alone"]])
    }
}
