internal import Foundation

/// Apple's `NSDecimal` structure as bytes: the image the Core Data bridge stores, base64-encoded, in
/// `CDTISMeta_<name>.nsdecimal`.
///
/// The structure is 20 bytes on Apple's (little-endian) platforms: a 32-bit word of bit fields (from the low
/// bit: `_exponent` 8 bits signed, `_length` 4, `_isNegative` 1, `_isCompact` 1, `_reserved` 18), then
/// `_mantissa`, eight 16-bit words, least significant first. Foundation's `Decimal` on Linux has the same
/// fields, so the image round-trips exactly.
enum DecimalImage {
    static let byteCount = 20

    static func bytes(of value: Decimal) -> [UInt8] {
        var word = UInt32(UInt8(bitPattern: Int8(truncatingIfNeeded: value._exponent)))
        word |= (UInt32(value._length) & 0xF) << 8
        word |= (UInt32(value._isNegative) & 1) << 12
        word |= (UInt32(value._isCompact) & 1) << 13
        word |= (UInt32(value._reserved) & 0x3FFFF) << 14
        var bytes: [UInt8] = (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) }
        let m = value._mantissa
        for part in [m.0, m.1, m.2, m.3, m.4, m.5, m.6, m.7] {
            bytes.append(UInt8(truncatingIfNeeded: part))
            bytes.append(UInt8(truncatingIfNeeded: part >> 8))
        }
        return bytes
    }

    static func decimal(from bytes: [UInt8]) -> Decimal? {
        guard bytes.count == byteCount else { return nil }
        let word = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[$1]) << (8 * $1) }
        func part(_ index: Int) -> UInt16 { UInt16(bytes[4 + 2 * index]) | UInt16(bytes[5 + 2 * index]) << 8 }
        let length = (word >> 8) & 0xF
        guard length <= 8 else { return nil }
        return Decimal(
            _exponent: Int32(Int8(bitPattern: UInt8(word & 0xFF))), _length: length, _isNegative: (word >> 12) & 1,
            _isCompact: (word >> 13) & 1, _reserved: (word >> 14) & 0x3FFFF,
            _mantissa: (part(0), part(1), part(2), part(3), part(4), part(5), part(6), part(7)))
    }
}
