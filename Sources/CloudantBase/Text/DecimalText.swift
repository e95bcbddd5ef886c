/// Decimal numbers read from their text without the C library, giving exactly what `Double(_: String)` gives.
///
/// `Double(_: String)` goes through `strtod`, which builds a multi-precision number for every input: a
/// fifth of reading a GPX route file (three to seven numbers a track point) went there. Plain decimals
/// whose digits fit in 53 bits and whose exponent is within ±22 (every coordinate, accuracy and quantity
/// value Apple writes) take Clinger's fast path here: the significand and the power of ten are both exact
/// doubles, so one IEEE multiplication or division rounds correctly, as `strtod` does. Anything else (more
/// digits, larger exponents, `inf`, `nan`, hexadecimal, surrounding spaces) goes to `Double(_: String)`, so
/// what is accepted, and the value it gives, are the standard library's.
package enum DecimalText {
    /// The number `text` spells, as `Double(text)` reads it.
    package static func double(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { double(utf8: $0) }
    }

    /// The number the UTF-8 `bytes` spell, as `Double` reads their text.
    package static func double(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        plainDouble(utf8: bytes) ?? Double(String(decoding: bytes, as: UTF8.self))
    }

    /// The number of `[+-]digits[.digits][(e|E)[+-]digits]` within the exact range, else `nil` (which says
    /// nothing about whether the text is a number: ask ``double(utf8:)``).
    package static func plainDouble(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let count = bytes.count
        var negative = false
        if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var significand: UInt64 = 0
        var digits = 0
        var exponent = 0
        func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }
        let integerStart = index
        while index < count, isDigit(bytes[index]) {
            // Leading zeros add nothing; 19 significant digits always fit in a UInt64.
            if significand != 0 || bytes[index] != UInt8(ascii: "0") { digits += 1 }
            guard digits <= 19 else { return nil }
            significand = significand &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        guard index > integerStart else { return nil }
        if index < count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < count, isDigit(bytes[index]) {
                if significand != 0 || bytes[index] != UInt8(ascii: "0") { digits += 1 }
                guard digits <= 19 else { return nil }
                significand = significand &* 10 &+ UInt64(bytes[index] &- UInt8(ascii: "0"))
                exponent -= 1
                index += 1
            }
            guard index > fractionStart else { return nil }
        }
        if index < count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var exponentNegative = false
            if index < count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            let exponentStart = index
            var written = 0
            while index < count, isDigit(bytes[index]) {
                guard written < 1_000 else { return nil }
                written = written * 10 + Int(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            guard index > exponentStart else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard index == count else { return nil }
        return exactDouble(significand: significand, exponent: exponent, negative: negative)
    }

    /// `significand` × 10^`exponent` when Clinger's fast path gives it exactly (significand ≤ 2^53, exponent
    /// within ±22: both are exact doubles, so one IEEE multiplication or division rounds correctly), else nil.
    package static func exactDouble(significand: UInt64, exponent: Int, negative: Bool) -> Double? {
        guard significand <= 1 << 53, (-22...22).contains(exponent) else { return nil }
        var value = Double(significand)
        if exponent >= 0 {
            value *= exactPowersOfTen[exponent]
        } else {
            value /= exactPowersOfTen[-exponent]
        }
        return negative ? -value : value
    }

    /// 10^0 … 10^22: every power of ten that a `Double` holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
