public import CloudantCore
public import Foundation

extension HealthUnit {
    /// The unit's dimension and exact scale to the coherent base units.
    struct Canonical: Hashable {
        var dimension: UnitDimension
        var scale: UnitScale
    }

    /// The canonical form; with `molesAsMass`, moles that carry a molar mass count as grams (1 mol<M> = M g).
    func canonical(molesAsMass: Bool = false) -> Canonical {
        var result = Canonical(dimension: .none, scale: .one)
        for factor in factors {
            guard let symbol = UnitSymbol.table[factor.symbol] else { continue }
            var dimension = symbol.dimension
            var scale = symbol.scale
            if let prefix = UnitSymbol.prefixes.first(where: { $0.symbol == factor.prefix }) {
                scale = scale * prefix.scale
            }
            if molesAsMass, let text = factor.molarMass,
                let molarMass = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
            {
                dimension = .base(UnitDimension.Base.mass)
                scale = scale * UnitScale(numerator: molarMass)
            }
            result.dimension = result.dimension * dimension.power(factor.exponent)
            result.scale = result.scale * scale.power(factor.exponent)
        }
        return result
    }

    /// The temperature symbol when the unit is one temperature and nothing else (`degC`, `degF`, `K`).
    private var loneTemperature: UnitSymbol? {
        guard factors.count == 1, let factor = factors.first, factor.exponent == 1, factor.prefix.isEmpty,
            let symbol = UnitSymbol.table[factor.symbol],
            symbol.dimension == .base(UnitDimension.Base.temperature)
        else { return nil }
        return symbol
    }

    /// Whether values convert between the two units (equal dimensions, or mass and moles with a molar mass).
    public func isCompatible(with other: HealthUnit) -> Bool {
        canonical().dimension == other.canonical().dimension
            || canonical(molesAsMass: true).dimension == other.canonical(molesAsMass: true).dimension
    }

    /// Converts `value` from this unit to `target` in decimal arithmetic.
    ///
    /// Lone temperatures convert with their offsets (`212 degF` → `100 degC`); inside a compound unit a
    /// temperature is a difference and converts by scale only. Moles convert to and from mass through the
    /// molar mass written in `<…>`.
    ///
    /// ```swift
    /// try HealthUnit.pound.convert(Decimal(1), to: .kilogram)   // 0.45359237
    /// ```
    /// - Throws: `CloudantError` `.incompatibleUnits` naming both units when the dimensions differ.
    public func convert(_ value: Decimal, to target: HealthUnit) throws(CloudantError) -> Decimal {
        if let from = loneTemperature, let to = target.loneTemperature {
            let kelvin = (value + from.offset) * from.scale.numerator / from.scale.denominator
            return kelvin * to.scale.denominator / to.scale.numerator - to.offset
        }
        var source = canonical()
        var destination = target.canonical()
        if source.dimension != destination.dimension {
            source = canonical(molesAsMass: true)
            destination = target.canonical(molesAsMass: true)
        }
        guard source.dimension == destination.dimension else {
            let hint =
                factors.contains(where: { $0.symbol == "mol" && $0.molarMass == nil })
                    || target.factors.contains(where: { $0.symbol == "mol" && $0.molarMass == nil })
                ? " Moles convert to mass only with a molar mass, as in mmol<180.15588>." : ""
            throw CloudantError(
                .incompatibleUnits, "\(self) and \(target) measure different things; they cannot be converted.\(hint)",
                context: .init(field: "\(self) → \(target)"))
        }
        // Multiply everything first and divide once, so ratios like 5/9 stay exact where the result is.
        return value * source.scale.numerator * destination.scale.denominator
            / (source.scale.denominator * destination.scale.numerator)
    }

    /// Converts a `Double` value from this unit to `target` (through the `Decimal` overload).
    /// - Throws: `CloudantError` `.incompatibleUnits` when the dimensions differ.
    public func convert(_ value: Double, to target: HealthUnit) throws(CloudantError) -> Double {
        let exact = Decimal(string: "\(value)", locale: Locale(identifier: "en_US_POSIX")) ?? Decimal(value)
        let converted: Decimal = try convert(exact, to: target)
        return Double("\(converted)") ?? NSDecimalNumber(decimal: converted).doubleValue
    }
}
