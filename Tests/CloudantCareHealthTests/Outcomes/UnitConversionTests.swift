import CloudantCareHealth
import Foundation
import Testing

@Suite("Outcome unit conversion")
struct UnitConversionTests {
    private func total(
        _ type: String, link unit: String, samples: [(value: Double, unit: String)], kind: HealthKitLinkage.QuantityType = .cumulative
    ) async throws -> [Double] {
        let fixture = try BridgeFixture(zone: "UTC")
        let linkage = HealthKitLinkage(quantityIdentifier: type, quantityType: kind, unitString: unit)
        _ = try await fixture.care.add([fixture.dailyTask(id: "t", start: try fixture.date(2024, 2, 1), linkage: linkage)])
        _ = try await fixture.documents.add(
            try samples.enumerated().map { index, sample in
                fixture.sample("S\(index)", type, value: sample.value, unit: sample.unit, start: try fixture.date(2024, 2, 2, index))
            })
        let outcome = try #require(try await fixture.careHealth.fetchOutcomes(for: "t", in: try fixture.days(from: try fixture.date(2024, 2, 2), count: 1)).first)
        return outcome.values.compactMap(\.numericValue)
    }

    @Test func countsAddUpAsCounts() async throws {
        #expect(try await total(BridgeFixture.steps, link: "count", samples: [(120, "count"), (30, "count")]) == [150])
    }

    @Test func kilocaloriesAndKilojoulesConvertBothWays() async throws {
        // 1 kcal = 4.184 kJ exactly.
        let inKilojoules = try await total(BridgeFixture.energy, link: "kJ", samples: [(10, "kcal"), (4.184, "kJ")])
        #expect(inKilojoules.count == 1)
        #expect(abs(inKilojoules[0] - 46.024) < 1e-9)
        let inKilocalories = try await total(BridgeFixture.energy, link: "kcal", samples: [(41.84, "kJ"), (1, "Cal")])
        #expect(abs((inKilocalories.first ?? 0) - 11) < 1e-9)
    }

    @Test func glucoseConvertsBetweenMilligramsPerDecilitreAndMillimolesPerLitreThroughItsMolarMass() async throws {
        // 180.15588 g/mol: 5 mmol/L is 90.07794 mg/dL; HealthKit's spelling carries the molar mass, a link may not.
        let millimoles = try await total(
            BridgeFixture.glucose, link: "mmol/L", samples: [(90.07794, "mg/dL"), (5, "mmol<180.15588000005408>/L")],
            kind: .discrete)
        #expect(millimoles.count == 2)
        #expect(millimoles.allSatisfy { abs($0 - 5) < 1e-6 })
        let milligrams = try await total(BridgeFixture.glucose, link: "mg/dL", samples: [(5, "mmol/L")], kind: .discrete)
        #expect(abs((milligrams.first ?? 0) - 90.07794) < 1e-6)
    }

    @Test func aSampleInAnIncompatibleUnitIsATypedErrorNamingTheSample() async throws {
        let error = await #expect(throws: CloudantError.self) {
            try await total(BridgeFixture.steps, link: "count", samples: [(10, "count"), (2, "kg")])
        }
        #expect(error?.code == .incompatibleUnits)
        #expect(error?.context.documentID == "S1")
    }

    @Test func moleAndMassStayIncompatibleForATypeWithoutAKnownMolarMass() async throws {
        let error = await #expect(throws: CloudantError.self) {
            try await total(BridgeFixture.energy, link: "mg", samples: [(1, "mmol")], kind: .discrete)
        }
        #expect(error?.code == .incompatibleUnits)
    }

    @Test func aLinkageUnitThatDoesNotParseNamesTheTask() async throws {
        let error = await #expect(throws: CloudantError.self) {
            try await total(BridgeFixture.steps, link: "steps/", samples: [(1, "count")])
        }
        #expect(error?.code == .invalidUnit)
        #expect(error?.context.documentID == "t")
    }
}
