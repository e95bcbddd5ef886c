internal import Foundation

/// Apple's `NSDecimal` structure as bytes: the image the Core Data bridge stores, base64-encoded, in
/// `CDTISMeta_<name>.nsdecimal`.
///
/// The structure is 20 bytes on Apple's (little-endian) platforms: a 32-bit word of bit fields (from the low
/// bit: `_exponent` 8 bits signed, `_length` 4, `_isNegative` 1, `_isCompact` 1, `_reserved` 18), then
/// `_mantissa`, eight 16-bit words, least significant first.
///
/// Foundation on Linux keeps those fields behind an SPI, so the image is built from the public surface
/// instead: `exponent`, `isSignMinus` and `significand`, whose description is the mantissa's exact decimal
/// digits. The mantissa words come from those digits by long arithmetic, and back the same way, so the image
/// round-trips exactly without touching Foundation's internals.
enum DecimalImage {
    static let byteCount = 20

    static func bytes(of value: Decimal) -> [UInt8] {
        let words: [UInt16]
        let isNegative: UInt32
        let exponent: Int
        if value.isNaN {
            // NSDecimal's NaN: length 0 with the sign bit set.
            (words, isNegative, exponent) = ([], 1, 0)
        } else {
            words = mantissaWords(decimalDigits: value.significand.description)
            isNegative = value.isSignMinus && !words.isEmpty ? 1 : 0
            exponent = words.isEmpty ? 0 : value.exponent
        }
        let isCompact: UInt32 = words.isEmpty || !isMultipleOfTen(words) ? 1 : 0
        var word = UInt32(UInt8(bitPattern: Int8(truncatingIfNeeded: exponent)))
        word |= (UInt32(words.count) & 0xF) << 8
        word |= isNegative << 12
        word |= isCompact << 13
        var bytes: [UInt8] = (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        for index in 0..<8 {
            let part = index < words.count ? words[index] : 0
            bytes.append(UInt8(truncatingIfNeeded: part))
            bytes.append(UInt8(truncatingIfNeeded: part >> 8))
        }
        return bytes
    }

    static func decimal(from bytes: [UInt8]) -> Decimal? {
        guard bytes.count == byteCount else { return nil }
        var word: UInt32 = 0
        for index in 0..<4 { word |= UInt32(bytes[index]) << (8 * UInt32(index)) }
        let length = Int((word >> 8) & 0xF)
        guard length <= 8 else { return nil }
        let isNegative = (word >> 12) & 1 == 1
        if length == 0 { return isNegative ? .nan : Decimal() }
        let exponent = Int(Int8(bitPattern: UInt8(word & 0xFF)))
        var words: [UInt16] = []
        for index in 0..<length {
            let low = UInt16(bytes[4 + 2 * index])
            let high = UInt16(bytes[5 + 2 * index])
            words.append(low | high << 8)
        }
        let digits = decimalDigits(mantissaWords: words)
        return Decimal(string: "\(isNegative ? "-" : "")\(digits)e\(exponent)", locale: Locale(identifier: "en_US_POSIX"))
    }

    /// The 16-bit words (least significant first, no leading zero words) of a non-negative integer written
    /// in decimal digits.
    static func mantissaWords(decimalDigits: String) -> [UInt16] {
        var words: [UInt16] = []
        for character in decimalDigits {
            guard let digit = character.wholeNumberValue else { continue }
            var carry = UInt32(digit)
            for index in words.indices {
                let product = UInt32(words[index]) * 10 + carry
                words[index] = UInt16(truncatingIfNeeded: product)
                carry = product >> 16
            }
            if carry > 0 { words.append(UInt16(carry)) }
        }
        return words
    }

    /// The decimal digits of the non-negative integer whose 16-bit words (least significant first) are given.
    static func decimalDigits(mantissaWords: [UInt16]) -> String {
        var words = mantissaWords
        var digits: [Character] = []
        while words.contains(where: { $0 != 0 }) {
            var remainder: UInt32 = 0
            for index in words.indices.reversed() {
                let dividend = remainder << 16 | UInt32(words[index])
                words[index] = UInt16(dividend / 10)
                remainder = dividend % 10
            }
            digits.append(Character(String(remainder)))
        }
        return digits.isEmpty ? "0" : String(digits.reversed())
    }

    private static func isMultipleOfTen(_ words: [UInt16]) -> Bool {
        var remainder: UInt32 = 0
        for part in words.reversed() { remainder = (remainder << 16 | UInt32(part)) % 10 }
        return remainder == 0
    }
}
