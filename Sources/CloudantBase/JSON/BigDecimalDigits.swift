/// Exact comparisons of integers written as decimal digits (``JSONNumber/bigInteger(_:)``), with each
/// other and with doubles, so numbers beyond 64 bits order by their true value as CouchDB's do.
enum BigDecimalDigits {
    /// Compares two integers written as decimal digits (optional `-`, no leading zeros): -1, 0 or 1.
    static func compare(_ lhs: String, _ rhs: String) -> Int {
        let leftNegative = lhs.hasPrefix("-")
        let rightNegative = rhs.hasPrefix("-")
        if leftNegative != rightNegative { return leftNegative ? -1 : 1 }
        let left = Array(lhs.utf8.drop { $0 == UInt8(ascii: "-") })
        let right = Array(rhs.utf8.drop { $0 == UInt8(ascii: "-") })
        let magnitude: Int =
            left.count != right.count
            ? (left.count < right.count ? -1 : 1)
            : (left == right ? 0 : (left.lexicographicallyPrecedes(right) ? -1 : 1))
        return leftNegative ? -magnitude : magnitude
    }

    /// Compares an integer written as decimal digits with a double exactly: -1, 0 or 1. A NaN sorts below.
    static func compare(_ digits: String, double: Double) -> Int {
        if double.isNaN { return 1 }
        let approximate = Double(digits) ?? (digits.hasPrefix("-") ? -.infinity : .infinity)
        // Rounding to the nearest double keeps order, so unequal roundings decide; equal ones mean the double
        // is an integer (the digits are beyond 2^63), whose exact digits settle it.
        if approximate != double { return approximate < double ? -1 : 1 }
        return compare(digits, exactDigits(of: double))
    }

    /// The exact decimal digits of an integral, finite double.
    static func exactDigits(of double: Double) -> String {
        guard double.isFinite else { return double < 0 ? "-0" : "0" }
        let magnitude = double.magnitude
        // magnitude = significand × 2^exponent, significand below 2^53.
        var significand = magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0)
        var exponent = Int(magnitude.exponentBitPattern) - 1075
        if magnitude.exponentBitPattern == 0 { exponent = -1074 }
        while exponent < 0, significand > 0 {
            significand >>= 1
            exponent += 1
        }
        // Little-endian base-10 digits of the significand, doubled `exponent` times.
        var digits: [UInt8] = String(significand).utf8.reversed().map { $0 - UInt8(ascii: "0") }
        for _ in 0..<max(0, exponent) {
            var carry: UInt8 = 0
            for index in digits.indices {
                let doubled = digits[index] * 2 + carry
                digits[index] = doubled % 10
                carry = doubled / 10
            }
            if carry > 0 { digits.append(carry) }
        }
        let text = String(decoding: digits.reversed().map { $0 + UInt8(ascii: "0") }, as: UTF8.self)
        return double < 0 && text != "0" ? "-" + text : text
    }
}
