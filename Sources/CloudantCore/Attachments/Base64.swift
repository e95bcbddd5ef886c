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

    /// Decodes standard base64 (whitespace tolerated, as CouchDB does); `nil` when malformed.
    public static func decode(_ string: String) -> [UInt8]? {
        let compact = string.filter { !$0.isWhitespace }
        return Data(base64Encoded: compact).map { Array($0) }
    }
}
