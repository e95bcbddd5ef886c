/// A JSON number kept exactly.
///
/// Integers that fit in 64 bits are held as integers, so ids and counters survive a round trip through
/// the store bit for bit (Foundation's `JSONSerialization` would turn 2^63-1 into a lossy `Double`).
/// Larger integers are kept as their decimal digits, as CouchDB (Erlang's integers) keeps them, so
/// `12345678901234567890` is written back as sent. Every other number is held as a `Double`.
public enum JSONNumber: Sendable, Hashable {
    /// An integer written without a fraction or exponent that fits in `Int64`.
    case integer(Int64)
    /// An integer written without a fraction or exponent beyond `Int64`: its decimal digits, with a
    /// leading `-` when negative and no leading zeros.
    case bigInteger(String)
    /// Any other number.
    case double(Double)

    /// Creates an integer number.
    public init(_ value: Int64) { self = .integer(value) }

    /// Creates an integer number.
    public init(_ value: Int) { self = .integer(Int64(value)) }

    /// Creates a number from a `Double`, keeping it an integer when it is one exactly.
    public init(_ value: Double) {
        if value.rounded(.towardZero) == value, abs(value) < 9.2e18, let exact = Int64(exactly: value) {
            self = .integer(exact)
        } else {
            self = .double(value)
        }
    }

    /// The value as a `Double` (exact for every integer up to 2^53; the nearest double, or an infinity,
    /// for a big integer).
    public var doubleValue: Double {
        switch self {
        case .integer(let value): Double(value)
        case .bigInteger(let digits): Double(digits) ?? (digits.hasPrefix("-") ? -.infinity : .infinity)
        case .double(let value): value
        }
    }

    /// The value as an `Int64` when it is an integer that fits, else `nil`.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .bigInteger: nil
        case .double(let value): Int64(exactly: value)
        }
    }

    // Numbers compare by value, as JSON and CouchDB's collation do: `1` and `1.0` are equal.
    public static func == (lhs: JSONNumber, rhs: JSONNumber) -> Bool {
        switch (lhs, rhs) {
        case (.integer(let a), .integer(let b)): a == b
        case (.bigInteger(let a), .bigInteger(let b)): a == b
        case (.bigInteger, .integer), (.integer, .bigInteger): false
        default: Self.compare(lhs, rhs) == 0
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(doubleValue)
    }
}
