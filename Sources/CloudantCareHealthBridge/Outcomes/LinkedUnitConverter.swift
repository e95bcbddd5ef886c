internal import CloudantCore
internal import CloudantCareModule
internal import CloudantHealthModule
internal import Foundation

/// Converts sample values of one quantity type into a linkage's unit with the health module's unit grammar.
///
/// Conversions are linear except between lone temperatures, so each distinct sample unit string is parsed
/// and converted once, to a factor, and a million samples cost a multiplication each; a temperature is
/// converted value by value.
///
/// Moles: HealthKit writes blood glucose as `mmol<180.15588000005408>/L`, but a linkage (or a hand-made sample)
/// may say `mmol/L`. For a quantity type whose molar mass is known (``molarMasses``) a mole factor without one
/// takes it, so `mg/dL` and `mmol/L` convert for glucose; for any other type, moles without a molar mass and a
/// mass are incompatible units.
struct LinkedUnitConverter {
    /// Molar masses (g/mol) HealthKit uses for quantity types measured in moles.
    static let molarMasses: [String: String] = [
        // HKUnitMolarMassBloodGlucose.
        "HKQuantityTypeIdentifierBloodGlucose": "180.15588000005408"
    ]

    let quantityIdentifier: String
    let target: HealthUnit
    private var factors: [String: Double?] = [:]

    /// - Throws: `CloudantError.Code.invalidUnit` when the linkage's unit string does not parse.
    init(linkage: HealthKitLinkage, taskID: String) throws {
        quantityIdentifier = linkage.quantityIdentifier
        do {
            target = Self.withMolarMass(try HealthUnit(parsing: linkage.unitString), for: linkage.quantityIdentifier)
        } catch {
            throw error.adding { context in
                context.documentID = context.documentID ?? taskID
                context.kind = HealthKitLinkedTask.careKindName
            }
        }
    }

    /// `value`, written in `unitString`, in the target unit.
    ///
    /// - Throws: `CloudantError.Code.incompatibleUnits` naming the sample (`documentID`) and both
    ///   units when the sample measures something else; `CloudantError.Code.invalidUnit` when the
    ///   sample's unit does not parse.
    mutating func convert(_ value: Double, from unitString: String, sampleID: String) throws -> Double {
        if let factor = try factor(from: unitString, sampleID: sampleID) { return value * factor }
        do {
            return try parsed(unitString).convert(value, to: target)
        } catch let error as CloudantError {
            throw error.adding { context in
                context.documentID = sampleID
                context.kind = HealthSampleType.quantity.kindName
            }
        }
    }

    /// The factor converting `unitString` into the target unit, or nil for a unit that converts with an
    /// offset (a lone temperature); each unit string is parsed once.
    /// - Throws: As ``convert(_:from:sampleID:)``.
    mutating func factor(from unitString: String, sampleID: String) throws -> Double? {
        do {
            if let known = factors[unitString] { return known }
            let source = try parsed(unitString)
            let one: Double = try source.convert(1.0, to: target)
            let zero: Double = try source.convert(0.0, to: target)
            // Linear through zero: every unit but a lone temperature (degC → degF has an offset).
            let factor = zero == 0 ? one : Optional<Double>.none
            factors[unitString] = factor
            return factor
        } catch let error as CloudantError {
            throw error.adding { context in
                context.documentID = sampleID
                context.kind = HealthSampleType.quantity.kindName
            }
        }
    }

    private func parsed(_ unitString: String) throws -> HealthUnit {
        Self.withMolarMass(try HealthUnit(parsing: unitString), for: quantityIdentifier)
    }

    /// `unit` with the quantity type's molar mass on every mole factor that has none.
    static func withMolarMass(_ unit: HealthUnit, for quantityIdentifier: String) -> HealthUnit {
        guard let molarMass = molarMasses[quantityIdentifier],
            unit.factors.contains(where: { $0.symbol == "mol" && $0.molarMass == nil })
        else { return unit }
        return HealthUnit(
            factors: unit.factors.map { factor in
                var copy = factor
                if copy.symbol == "mol", copy.molarMass == nil { copy.molarMass = molarMass }
                return copy
            })
    }
}
