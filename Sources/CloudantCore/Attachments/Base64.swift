internal import Foundation

/// Base64 as CouchDB writes attachment data and digests (standard alphabet, padded).
public enum Base64 {
    /// Encodes bytes.
    ///
    /// Written here rather than through `Data.base64EncodedString()`: every `_find` answer encodes its
    /// bookmark, and Foundation's copy into `Data` and its encoder were a tenth of a one-document find.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(buffer: $0) }) { return encoded }
        return Array(bytes).withUnsafeBufferPointer { encode(buffer: $0) }
    }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    private static func encode(buffer bytes: UnsafeBufferPointer<UInt8>) -> String {
        let alphabet = Self.alphabet
        let count = (bytes.count + 2) / 3 * 4
        return String(unsafeUninitializedCapacity: count) { output in
            var written = 0
            var index = 0
            // Three bytes become four characters; the last one or two bytes are padded with `=`.
            while index + 3 <= bytes.count {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output[written] = alphabet[Int(chunk >> 18 & 0x3F)]
                output[written + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                output[written + 2] = alphabet[Int(chunk >> 6 & 0x3F)]
                output[written + 3] = alphabet[Int(chunk & 0x3F)]
                written += 4
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let chunk = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                output[written] = alphabet[Int(chunk >> 18 & 0x3F)]
                output[written + 1] = alphabet[Int(chunk >> 12 & 0x3F)]
                output[written + 2] = rest == 2 ? alphabet[Int(chunk >> 6 & 0x3F)] : UInt8(ascii: "=")
                output[written + 3] = UInt8(ascii: "=")
                written += 4
            }
            return written
        }
    }

    /// Decodes standard base64 with whitespace anywhere (as Erlang's `base64:decode/1`, which CouchDB reads
    /// attachment data with, skips it); `nil` when what is left is not RFC 4648 base64 (``decode(strict:)``):
    /// CouchDB refuses such data (`notBase64Encoded=`) with `400`, where Foundation's lenient decoder would
    /// have taken some of it.
    public static func decode(_ string: String) -> [UInt8]? {
        if let decoded = decode(strict: string.utf8) { return decoded }
        let whitespace: Set<UInt8> = [9, 10, 13, 32]
        return decode(strict: string.utf8.filter { !whitespace.contains($0) })
    }

    /// Decodes RFC 4648 base64: padded to a multiple of four characters, nothing outside the standard
    /// alphabet, `=` only as the last one or two characters (unused final bits are ignored); `nil`
    /// otherwise. What it accepts, `Data(base64Encoded:)` decodes to the same bytes; it refuses some forms
    /// Foundation takes (`QQ=A`, `QUJD=`).
    ///
    /// Written here so that a request's `Authorization: Basic` header and attachment data decode without
    /// Foundation's copies into `String` and `Data`.
    public static func decode(strict characters: some Collection<UInt8>) -> [UInt8]? {
        if let decoded = characters.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return decoded }
        return Array(characters).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    /// Each byte's six-bit value, or 0xFF for a byte outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

    private static func decode(buffer characters: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard characters.count % 4 == 0 else { return nil }
        if characters.isEmpty { return [] }
        let equals = UInt8(ascii: "=")
        let padding = characters[characters.count - 1] != equals ? 0 : characters[characters.count - 2] == equals ? 2 : 1
        let values = Self.values
        var decoded = [UInt8]()
        decoded.reserveCapacity(characters.count / 4 * 3 - padding)
        var index = 0
        while index < characters.count {
            let isLast = index + 4 == characters.count
            let significant = isLast ? 4 - padding : 4
            var chunk: UInt32 = 0
            for offset in 0..<4 {
                let value = offset < significant ? values[Int(characters[index + offset])] : 0
                if value == 0xFF { return nil }
                chunk = chunk << 6 | UInt32(value)
            }
            decoded.append(UInt8(truncatingIfNeeded: chunk >> 16))
            if significant > 2 { decoded.append(UInt8(truncatingIfNeeded: chunk >> 8)) }
            if significant > 3 { decoded.append(UInt8(truncatingIfNeeded: chunk)) }
            index += 4
        }
        return decoded
    }

    /// Encodes bytes as unpadded base64url (RFC 4648 §5), as CouchDB writes its opaque sequences and session
    /// cookies (`couch_util:encodeBase64Url/1`).
    public static func encodeURL(_ bytes: some Sequence<UInt8>) -> String {
        var text = encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }

    /// Decodes base64url, padded or not (``decode(strict:)`` once its alphabet is the standard one); nil when
    /// it is not base64url.
    public static func decodeURL(_ text: some StringProtocol) -> [UInt8]? {
        var standard = text.utf8.map { $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0 }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return decode(strict: standard)
    }
}
