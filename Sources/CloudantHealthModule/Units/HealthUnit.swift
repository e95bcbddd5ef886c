public import CloudantCore
internal import Foundation

/// A HealthKit unit (`HKUnit`): parsed from and printed as HealthKit's unit strings, and converted exactly
/// between compatible units. The original kept a hard-coded table of about 50 strings.
///
/// ```swift
/// let glucose = try HealthUnit(parsing: "mmol<180.1558800000541>/L")
/// let mgdl = try HealthUnit(parsing: "mg/dL")
/// try glucose.convert(5.5, to: mgdl)          // 99.08573…
/// try HealthUnit(parsing: "degF").convert(212, to: .degreeCelsius)   // 100
/// ```
///
/// Grammar: a product of factors joined by `·` (or `*`, `.`), optionally `/` and a denominator product (or a
/// parenthesised one, `mL/(kg·min)`). Each factor is an optional SI prefix, a symbol, an optional molar mass
/// in `<…>` for moles, and an optional power (`^2`, `^-1`, `²`, `³`). The unit prints the way it was
/// written, so a round trip keeps HealthKit's spelling, molar mass digits included.
public struct HealthUnit: Hashable, Sendable, CustomStringConvertible, Codable {
    /// One factor of a unit: `mmol<180.15588>`, `m^2`, `min`.
    public struct Factor: Hashable, Sendable {
        /// The SI prefix as written (`"m"`, `"k"`, `"mc"`), or empty.
        public var prefix: String
        /// The base symbol (`"g"`, `"L"`, `"count"`).
        public var symbol: String
        /// The molar mass in g/mol as written inside `<…>`, for moles.
        public var molarMass: String?
        /// The power; negative in a denominator.
        public var exponent: Int

        /// Creates a factor.
        public init(prefix: String = "", symbol: String, molarMass: String? = nil, exponent: Int = 1) {
            self.prefix = prefix
            self.symbol = symbol
            self.molarMass = molarMass
            self.exponent = exponent
        }
    }

    /// The factors in written order; denominator factors have negative exponents.
    public let factors: [Factor]

    /// Creates a unit from factors (the parser's output).
    public init(factors: [Factor]) {
        self.factors = factors
    }

    /// Parses a HealthKit unit string.
    /// - Throws: `CloudantError` `.invalidUnit` naming the string (`field`) and the character offset
    ///   (`position`) where it stops making sense.
    public init(parsing text: String) throws(CloudantError) {
        var parser = HealthUnitParser(text)
        self.init(factors: try parser.parse())
    }

    /// The unit as HealthKit prints it: `count/min`, `mg/dL`, `mL/min·kg`, `m^2`.
    public var description: String {
        let numerator = factors.filter { $0.exponent > 0 }.map { Self.text($0, power: $0.exponent) }
        let denominator = factors.filter { $0.exponent < 0 }.map { Self.text($0, power: -$0.exponent) }
        let top = numerator.isEmpty ? "count" : numerator.joined(separator: "·")
        return denominator.isEmpty ? top : top + "/" + denominator.joined(separator: "·")
    }

    private static func text(_ factor: Factor, power: Int) -> String {
        var text = factor.prefix + factor.symbol
        if let molarMass = factor.molarMass { text += "<\(molarMass)>" }
        if power != 1 { text += "^\(power)" }
        return text
    }

    /// Decodes a unit from its HealthKit string.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do { try self.init(parsing: text) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error))
        }
    }

    /// Encodes the unit as its HealthKit string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension HealthUnit {
    private static func single(_ symbol: String, prefix: String = "") -> HealthUnit {
        HealthUnit(factors: [Factor(prefix: prefix, symbol: symbol)])
    }

    /// `count`, the unit of step counts and other scalars.
    public static let count = single("count")
    /// `%`.
    public static let percent = single("%")
    /// `count/min`, the unit of heart rates.
    public static let countPerMinute = HealthUnit(factors: [Factor(symbol: "count"), Factor(symbol: "min", exponent: -1)])
    /// `kg`.
    public static let kilogram = single("g", prefix: "k")
    /// `g`.
    public static let gram = single("g")
    /// `lb`.
    public static let pound = single("lb")
    /// `m`.
    public static let meter = single("m")
    /// `km`.
    public static let kilometer = single("m", prefix: "k")
    /// `mi`.
    public static let mile = single("mi")
    /// `s`.
    public static let second = single("s")
    /// `ms`.
    public static let millisecond = single("s", prefix: "m")
    /// `min`.
    public static let minute = single("min")
    /// `kcal`.
    public static let kilocalorie = single("kcal")
    /// `kJ`.
    public static let kilojoule = single("J", prefix: "k")
    /// `degC`.
    public static let degreeCelsius = single("degC")
    /// `degF`.
    public static let degreeFahrenheit = single("degF")
    /// `mmHg`.
    public static let millimeterOfMercury = single("mmHg")
    /// `mg/dL`.
    public static let milligramsPerDeciliter = HealthUnit(
        factors: [Factor(prefix: "m", symbol: "g"), Factor(prefix: "d", symbol: "L", exponent: -1)])
    /// `dBASPL`.
    public static let decibelASPL = single("dBASPL")
}
