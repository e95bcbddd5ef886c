extension JSONNumber {
    /// Compares two numbers by value, exactly: an integer with a double without rounding either, numbers
    /// beyond 64 bits by their digits; NaN sorts first (CouchDB's collation of numbers).
    ///
    /// ```swift
    /// JSONNumber.compare(JSONNumber(1), JSONNumber(1.0))                    // 0
    /// JSONNumber.compare(JSONNumber(9_007_199_254_740_993), JSONNumber(9.007199254740992e15))   // 1
    /// ```
    /// - Returns: `-1`, `0` or `1`.
    public static func compare(_ a: JSONNumber, _ b: JSONNumber) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            return x == y ? 0 : (x < y ? -1 : 1)
        case (.double(let x), .double(let y)):
            return compareDoubles(x, y)
        case (.integer(let x), .double(let y)):
            return compareIntegerToDouble(x, y)
        case (.double(let x), .integer(let y)):
            return -compareIntegerToDouble(y, x)
        case (.bigInteger(let x), .bigInteger(let y)):
            return BigDecimalDigits.compare(x, y)
        case (.bigInteger(let x), .integer(let y)):
            return BigDecimalDigits.compare(x, String(y))
        case (.integer(let x), .bigInteger(let y)):
            return BigDecimalDigits.compare(String(x), y)
        case (.bigInteger(let x), .double(let y)):
            return BigDecimalDigits.compare(x, double: y)
        case (.double(let x), .bigInteger(let y)):
            return -BigDecimalDigits.compare(y, double: x)
        }
    }

    private static func compareDoubles(_ x: Double, _ y: Double) -> Int {
        switch (x.isNaN, y.isNaN) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    /// Compares an integer with a double exactly.
    private static func compareIntegerToDouble(_ x: Int64, _ y: Double) -> Int {
        if y.isNaN { return 1 }
        // 2^63 is exactly representable; every Int64 is below it and at or above -2^63.
        if y >= 9_223_372_036_854_775_808.0 { return -1 }
        if y < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = y.rounded(.down)
        // `whole` is in Int64's range here, so the conversion is exact and cannot trap.
        let floorValue = Int64(whole)
        if x != floorValue { return x < floorValue ? -1 : 1 }
        return whole == y ? 0 : -1
    }
}
