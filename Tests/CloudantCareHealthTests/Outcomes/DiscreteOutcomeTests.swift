import CloudantCareHealth
import Foundation
import Testing

@Suite("Discrete outcomes from samples")
struct DiscreteOutcomeTests {
    private func heartRateFixture(_ aggregation: DiscreteAggregation?) async throws -> (BridgeFixture, DateInterval) {
        let fixture = try BridgeFixture(zone: "America/New_York")
        let linkage = HealthKitLinkage(
            quantityIdentifier: BridgeFixture.heartRate, quantityType: .discrete, unitString: "count/min",
            aggregation: aggregation)
        _ = try await fixture.care.add([fixture.dailyTask(id: "pulse", start: try fixture.date(2024, 5, 1), linkage: linkage)])
        _ = try await fixture.documents.add([
            fixture.sample("B", BridgeFixture.heartRate, value: 80, unit: "count/min", start: try fixture.date(2024, 5, 2, 12)),
            fixture.sample("A", BridgeFixture.heartRate, value: 60, unit: "count/min", start: try fixture.date(2024, 5, 2, 8)),
            // 1.5 beats per second is 90 per minute.
            fixture.sample("C", BridgeFixture.heartRate, value: 1.5, unit: "count/s", start: try fixture.date(2024, 5, 2, 20)),
            fixture.sample("next-day", BridgeFixture.heartRate, value: 99, unit: "count/min", start: try fixture.date(2024, 5, 3, 1)),
        ])
        return (fixture, try fixture.days(from: try fixture.date(2024, 5, 2), count: 1))
    }

    @Test func eachSampleIsOneValueInStartOrderAsInCareKit() async throws {
        let (fixture, day) = try await heartRateFixture(nil)
        let outcome = try #require(try await fixture.careHealth.fetchOutcomes(for: "pulse", in: day).first)
        #expect(outcome.values.map(\.numericValue) == [60, 80, 90])
        #expect(outcome.sampleUUIDs == [["A"], ["B"], ["C"]])
        #expect(outcome.values.allSatisfy { $0.units == "count/min" && $0.createdDate == BridgeFixture.computedAt })
    }

    @Test(arguments: [
        (DiscreteAggregation.latest, 90.0, ["C"]), (.minimum, 60, ["A"]), (.maximum, 90, ["C"]),
        (.average, (60 + 80 + 90) / 3, ["A", "B", "C"]),
    ])
    func anAggregatedLinkageGivesOneValuePerEvent(aggregation: DiscreteAggregation, expected: Double, uuids: [String])
        async throws
    {
        let (fixture, day) = try await heartRateFixture(aggregation)
        let outcome = try #require(try await fixture.careHealth.fetchOutcomes(for: "pulse", in: day).first)
        #expect(outcome.values.map(\.numericValue) == [expected])
        #expect(outcome.sampleUUIDs == [uuids])
    }
}
