/// The physical dimension of a unit as exponents of base quantities (`g`, `m`, `s`, `mol`, `K`, and
/// HealthKit's own incommensurable ones such as `dBASPL`, `IU` or `S`). Two units convert only when their
/// dimensions are equal.
struct UnitDimension: Hashable, Sendable {
    private(set) var exponents: [String: Int]

    static let none = UnitDimension(exponents: [:])

    init(exponents: [String: Int]) {
        self.exponents = exponents.filter { $0.value != 0 }
    }

    static func base(_ name: String, _ exponent: Int = 1) -> UnitDimension {
        UnitDimension(exponents: [name: exponent])
    }

    static func * (lhs: UnitDimension, rhs: UnitDimension) -> UnitDimension {
        UnitDimension(exponents: lhs.exponents.merging(rhs.exponents, uniquingKeysWith: +))
    }

    func power(_ exponent: Int) -> UnitDimension {
        UnitDimension(exponents: exponents.mapValues { $0 * exponent })
    }

    func exponent(of base: String) -> Int { exponents[base] ?? 0 }

    /// Names of the base quantities.
    enum Base {
        static let mass = "mass"
        static let length = "length"
        static let time = "time"
        static let amount = "amount"
        static let temperature = "temperature"
    }
}
