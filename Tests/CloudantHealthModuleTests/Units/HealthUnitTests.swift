import CloudantCore
import CloudantHealthModule
import Foundation
import Testing

@Suite("HealthKit units")
struct HealthUnitTests {
    @Test(arguments: [
        "count/min", "mg/dL", "mmol<180.1558800000541>/L", "kcal", "kg", "lb", "m", "mi", "degC", "degF", "%", "ms",
        "dBASPL", "mg", "km", "mL", "µg", "mcg", "count", "m/s", "mL/min·kg", "kcal/hr·kg", "m^2", "kg·m^2", "cm",
        "mmHg", "kPa", "fl_oz_us", "cup_imp", "IU", "S", "mS", "mV", "Hz", "lx", "dBHL", "min", "hr", "d", "s",
        "cal", "Cal", "kJ", "K", "L", "dL", "in", "ft", "yd", "st", "oz", "cmAq", "atm", "count/s",
    ])
    func healthKitUnitStringsParseAndPrintUnchanged(_ text: String) throws {
        #expect(try HealthUnit(parsing: text).description == text)
    }

    @Test func superscriptsAndParenthesesAreReadAndPrintedTheHealthKitWay() throws {
        #expect(try HealthUnit(parsing: "kg·m²").description == "kg·m^2")
        #expect(try HealthUnit(parsing: "mL/(kg·min)").description == "mL/kg·min")
    }

    @Test(arguments: ["", "kg/", "foo", "mmol<abc>/L", "g<180>", "m^", "m^0", "kg//L", "mmol<180", "m/s)"])
    func invalidUnitStringsAreTypedErrors(_ text: String) {
        #expect(throws: CloudantError.self) { try HealthUnit(parsing: text) }
        do { _ = try HealthUnit(parsing: text) } catch { #expect(error.code == .invalidUnit) }
    }

    @Test func massConvertsExactly() throws {
        #expect(try HealthUnit.pound.convert(Decimal(1), to: .kilogram) == Decimal(string: "0.45359237"))
        #expect(try HealthUnit(parsing: "mg").convert(Decimal(1500), to: .gram) == Decimal(string: "1.5"))
        #expect(try HealthUnit(parsing: "oz").convert(Decimal(16), to: .pound) == 1)
    }

    @Test func temperatureConvertsWithItsOffsetInBothDirections() throws {
        #expect(try HealthUnit.degreeFahrenheit.convert(Decimal(212), to: .degreeCelsius) == 100)
        #expect(try HealthUnit.degreeCelsius.convert(Decimal(37), to: .degreeFahrenheit) == Decimal(string: "98.6"))
        #expect(try HealthUnit.degreeCelsius.convert(Decimal(0), to: HealthUnit(parsing: "K")) == Decimal(string: "273.15"))
        #expect(try HealthUnit.degreeFahrenheit.convert(98.6, to: .degreeCelsius) == 37)
    }

    @Test func glucoseConvertsBetweenMolesAndMassThroughTheMolarMass() throws {
        let millimolar = try HealthUnit(parsing: "mmol<180.15588>/L")
        let mgdl = HealthUnit.milligramsPerDeciliter
        #expect(try millimolar.convert(Decimal(1), to: mgdl) == Decimal(string: "18.015588"))
        #expect(try mgdl.convert(Decimal(string: "18.015588") ?? 0, to: millimolar) == 1)
    }

    @Test func compoundUnitsConvert() throws {
        #expect(try HealthUnit(parsing: "km/hr").convert(Decimal(36), to: HealthUnit(parsing: "m/s")) == 10)
        #expect(try HealthUnit.countPerMinute.convert(Decimal(60), to: HealthUnit(parsing: "count/s")) == 1)
        #expect(try HealthUnit(parsing: "mi").convert(Decimal(1), to: .kilometer) == Decimal(string: "1.609344"))
        #expect(try HealthUnit(parsing: "kcal").convert(Decimal(1), to: .kilojoule) == Decimal(string: "4.184"))
        #expect(try HealthUnit.percent.convert(Decimal(50), to: .count) == Decimal(string: "0.5"))
        #expect(try HealthUnit(parsing: "m^2").convert(Decimal(1), to: HealthUnit(parsing: "cm^2")) == 10000)
    }

    @Test func incompatibleUnitsAreATypedErrorThatNamesBoth() throws {
        do {
            _ = try HealthUnit.kilogram.convert(Decimal(1), to: .meter)
            Issue.record("kg converted to m")
        } catch {
            #expect(error.code == .incompatibleUnits)
            #expect(error.message.contains("kg") && error.message.contains("m"))
        }
        #expect(throws: CloudantError.self) { try HealthUnit(parsing: "mmol/L").convert(1.0, to: .milligramsPerDeciliter) }
        #expect(!HealthUnit.decibelASPL.isCompatible(with: .percent))
    }

    @Test func quantityReportsItsValueInAnotherUnit() throws {
        let distance = HealthQuantity(value: 5, unit: .kilometer)
        #expect(abs(try distance.doubleValue(for: .mile) - 3.106855961) < 1e-9)
    }

    @Test func unitEncodesAsItsHealthKitString() throws {
        let json = try JSONValue(encoding: HealthQuantity(value: 5.5, unit: HealthUnit(parsing: "mmol<180.1558800000541>/L")))
        #expect(json["unit"] == "mmol<180.1558800000541>/L")
        #expect(try json.decode(HealthQuantity.self).unit.description == "mmol<180.1558800000541>/L")
    }
}
