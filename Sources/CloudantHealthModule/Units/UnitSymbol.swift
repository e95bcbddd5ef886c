internal import Foundation

/// One base symbol HealthKit writes (`g`, `m`, `L`, `lb`, `degF`, `mmHg`, `count`), with its dimension
/// and exact scale to the coherent base (grams, metres, seconds, moles, kelvin).
struct UnitSymbol: Sendable {
    let symbol: String
    let dimension: UnitDimension
    let scale: UnitScale
    /// Added before scaling to reach the base (kelvin): `K = (degF + 459.67) × 5/9`. Non-zero only for
    /// `degC` and `degF`, which convert with their offset only when they stand alone.
    let offset: Decimal
    /// Whether SI prefixes apply (`mg`, `km`, `mL`, `ms`, `kcal`, `kPa`).
    let takesPrefixes: Bool

    private typealias D = UnitDimension
    private typealias B = UnitDimension.Base

    private init(_ symbol: String, _ dimension: UnitDimension, _ scale: UnitScale = .one, offset: Decimal = 0,
                 prefixes: Bool = false) {
        self.symbol = symbol
        self.dimension = dimension
        self.scale = scale
        self.offset = offset
        self.takesPrefixes = prefixes
    }

    private static let energy = D.base(B.mass) * D.base(B.length, 2) * D.base(B.time, -2)
    private static let pressure = D.base(B.mass) * D.base(B.length, -1) * D.base(B.time, -2)
    private static let volume = D.base(B.length, 3)
    private static let millilitre = UnitScale("0.000001")

    /// Every symbol HealthKit's `HKUnit(from:)` accepts (exact factors from NIST SP 811 and HealthKit's
    /// documented definitions), keyed by symbol.
    static let table: [String: UnitSymbol] = {
        let symbols: [UnitSymbol] = [
            // Mass (base: gram).
            .init("g", .base(B.mass), prefixes: true),
            .init("lb", .base(B.mass), UnitScale("453.59237")),
            .init("oz", .base(B.mass), UnitScale("453.59237", over: 16)),
            .init("st", .base(B.mass), UnitScale("6350.29318")),
            // Length (base: metre).
            .init("m", .base(B.length), prefixes: true),
            .init("in", .base(B.length), UnitScale("0.0254")),
            .init("ft", .base(B.length), UnitScale("0.3048")),
            .init("yd", .base(B.length), UnitScale("0.9144")),
            .init("mi", .base(B.length), UnitScale("1609.344")),
            // Volume (base: cubic metre).
            .init("L", volume, UnitScale("0.001"), prefixes: true),
            .init("fl_oz_us", volume, millilitre * UnitScale("29.5735295625")),
            .init("fl_oz_imp", volume, millilitre * UnitScale("28.4130625")),
            .init("pt_us", volume, millilitre * UnitScale("473.176473")),
            .init("pt_imp", volume, millilitre * UnitScale("568.26125")),
            .init("cup_us", volume, millilitre * UnitScale("236.5882365")),
            .init("cup_imp", volume, millilitre * UnitScale("284.130625")),
            // Time (base: second).
            .init("s", .base(B.time), prefixes: true),
            .init("min", .base(B.time), UnitScale("60")),
            .init("hr", .base(B.time), UnitScale("3600")),
            .init("d", .base(B.time), UnitScale("86400")),
            // Energy (base: g·m²/s², so a joule is 1000).
            .init("J", energy, UnitScale("1000"), prefixes: true),
            .init("cal", energy, UnitScale("4184"), prefixes: true),
            .init("Cal", energy, UnitScale("4184000")),
            // Pressure (base: g/(m·s²), so a pascal is 1000).
            .init("Pa", pressure, UnitScale("1000"), prefixes: true),
            .init("mmHg", pressure, UnitScale("133322.387415")),
            .init("cmAq", pressure, UnitScale("98066.5")),
            .init("atm", pressure, UnitScale("101325000")),
            .init("inHg", pressure, UnitScale("3386388.640341")),
            // Temperature (base: kelvin).
            .init("K", .base(B.temperature), prefixes: true),
            .init("degC", .base(B.temperature), offset: Decimal(string: "273.15") ?? 0),
            .init("degF", .base(B.temperature), UnitScale(numerator: 5, denominator: 9),
                  offset: Decimal(string: "459.67") ?? 0),
            // Amount of substance (base: mole); a molar mass in <…> makes it convertible to mass.
            .init("mol", .base(B.amount), prefixes: true),
            // Scalars.
            .init("count", .none),
            .init("%", .none, UnitScale(numerator: 1, denominator: 100)),
            // Frequency, electrical, light, and HealthKit's incommensurable units.
            .init("Hz", .base(B.time, -1), prefixes: true),
            .init("S", .base("conductance"), prefixes: true),
            .init("V", .base("potential"), prefixes: true),
            .init("lx", .base("illuminance"), prefixes: true),
            .init("IU", .base("internationalUnit")),
            .init("dBASPL", .base("soundPressureLevel")),
            .init("dBHL", .base("hearingLevel")),
            .init("D", .base("diopter")),
            .init("deg", .base("angle"), UnitScale(numerator: 1, denominator: 1)),
            .init("rad", .base("angle"), UnitScale("57.295779513082320876798154814105170332")),
            .init("W", energy * D.base(B.time, -1), UnitScale("1000"), prefixes: true),
            .init("kcal", energy, UnitScale("4184000")),
            .init("appleEffortScore", .base("appleEffortScore")),
        ]
        return Dictionary(symbols.map { ($0.symbol, $0) }, uniquingKeysWith: { first, _ in first })
    }()

    /// SI prefixes HealthKit accepts, with `mc` and `u` as spellings of micro (HealthKit prints `mcg`).
    static let prefixes: [(symbol: String, scale: UnitScale)] = [
        ("da", UnitScale("10")), ("p", UnitScale("0.000000000001")), ("n", UnitScale("0.000000001")),
        ("mc", UnitScale("0.000001")), ("µ", UnitScale("0.000001")), ("μ", UnitScale("0.000001")),
        ("u", UnitScale("0.000001")), ("m", UnitScale("0.001")), ("c", UnitScale("0.01")),
        ("d", UnitScale("0.1")), ("h", UnitScale("100")), ("k", UnitScale("1000")),
        ("M", UnitScale("1000000")), ("G", UnitScale("1000000000")), ("T", UnitScale("1000000000000")),
    ]
}
