internal import Foundation

/// An exact positive ratio of two decimals. Unit factors multiply numerators and denominators separately and
/// divide once at the end, so `degF → degC` (a 5/9 factor) and `lb → kg` stay exact wherever the result has
/// a finite decimal expansion.
struct UnitScale: Hashable, Sendable {
    var numerator: Decimal
    var denominator: Decimal

    static let one = UnitScale(numerator: 1, denominator: 1)

    init(numerator: Decimal, denominator: Decimal = 1) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// A scale from exact decimal text (`"0.45359237"`); the table only holds literals that parse.
    init(_ text: String, over denominator: Decimal = 1) {
        self.init(numerator: Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) ?? 1,
                  denominator: denominator)
    }

    static func * (lhs: UnitScale, rhs: UnitScale) -> UnitScale {
        UnitScale(numerator: lhs.numerator * rhs.numerator, denominator: lhs.denominator * rhs.denominator)
    }

    var inverse: UnitScale { UnitScale(numerator: denominator, denominator: numerator) }

    func power(_ exponent: Int) -> UnitScale {
        var result = UnitScale.one
        for _ in 0..<abs(exponent) { result = result * self }
        return exponent < 0 ? result.inverse : result
    }
}
