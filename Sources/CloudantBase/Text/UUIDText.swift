package import Foundation

/// UUIDs read from their text without Foundation's parser.
///
/// On Linux `UUID(uuidString:)` goes through `sscanf`, about a microsecond a UUID; a care version holds
/// several (its own, its task's, its previous and next versions'), so reading one day of outcomes spent a
/// tenth of its time in `sscanf`. The canonical spelling (hex digits in groups of 8-4-4-4-12, either case,
/// which is all the store and CareKit write) is read here; any other text goes to `UUID(uuidString:)`, so
/// what is accepted, and the UUID it gives, are exactly Foundation's.
package enum UUIDText {
    /// The UUID `text` spells, as `UUID(uuidString:)` reads it.
    package static func uuid(_ text: String) -> UUID? {
        canonical(text) ?? UUID(uuidString: text)
    }

    /// The UUID of canonical text (`E621E1F8-C36C-495A-93FC-0C247A3E6E5F`, either case), or `nil` for any
    /// other text, which may still be a UUID to Foundation (see ``uuid(_:)``).
    package static func canonical(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { canonical($0) }
    }

    private static func canonical(_ bytes: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard bytes.count == 36 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &value) { output -> Bool in
            var position = 0
            for byte in 0..<16 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard bytes[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = digit(bytes[position]), let low = digit(bytes[position + 1]) else { return false }
                output[byte] = high << 4 | low
                position += 2
            }
            return true
        }
        return parsed ? UUID(uuid: value) : nil
    }

    private static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        default: nil
        }
    }
}
