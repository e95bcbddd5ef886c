internal import CloudantCore
internal import Foundation

/// The stable key of an imported record: the document id every export of the same person gives the same
/// record, so re-importing adds nothing and a newer export adds only what is new.
///
/// The key hashes what identifies a sample and never changes between exports: its element and type, its
/// instants (not their spelling: the iOS 8 date format and a later one give one key), its creation time,
/// its value and unit, the hardware that measured it, and the identifiers apps attach
/// (`HKMetadataKeySyncIdentifier`, which alone names a sample an app may edit; `HKExternalUUID`). It leaves
/// out what a later export writes differently for the same sample: the `HKDevice` pointer printed in
/// `device` (a memory address, new in every export), the rest of the device text (its spelling changed across
/// iOS versions), the source's name (renaming a phone renames its samples), other metadata, attribute order
/// and a workout's totals (iOS 16 moved them into `<WorkoutStatistics>`). What it leaves out is still in the
/// document: a record whose key is stored with other content is a *changed* record (the report counts it).
enum ImportKey {
    /// A uuid: a version-7 layout whose 48-bit time is `start` (milliseconds since 1970, clamped to the
    /// field) and whose other 74 bits are the MD5 of `parts`, uppercase in 8-4-4-4-12 groups.
    ///
    /// Why time first: ids are the key of the two largest B-trees an import grows (the id index and the
    /// index by kind and id). Pure hashes sent every insert to a random page, so each batch of 2,000
    /// dirtied about 4,000 pages and a 1M-record import wrote 16.6 GB for a 1.7 GB file. An export lists
    /// each type's records in time order, so time-ordered ids are appended near the previous ones.
    static func uuid(_ parts: [String], startingAt start: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        for part in parts {
            bytes.append(contentsOf: part.utf8)
            bytes.append(0x1F)  // the unit separator: no part contains it, so parts cannot run together
        }
        var digest = md5(bytes)
        let milliseconds = (start.timeIntervalSince1970 * 1000).rounded(.down)
        let time = milliseconds <= 0 ? 0 : UInt64(min(milliseconds, Double((1 << 48) - 1)))
        for index in 0..<6 { digest[index] = UInt8(truncatingIfNeeded: time >> (8 * (5 - index))) }
        digest[6] = 0x70 | (digest[6] & 0x0F)  // version 7
        digest[8] = 0x80 | (digest[8] & 0x3F)  // RFC 9562 variant
        return hexGroups(digest)
    }

    /// The id of a second record with the same key and other content in one export (two records the key
    /// cannot tell apart): the key's time, and the hash of the key and of the body's revision hash. Derived
    /// from content, so importing that export again finds it.
    static func alternate(of id: String, revision: String) -> String {
        // The time is the key's own: its first 48 bits.
        let hex = id.filter { $0 != "-" }.prefix(12)
        let milliseconds = UInt64(hex, radix: 16) ?? 0
        return uuid([id, revision], startingAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// Milliseconds since 1970 as text: instants, whatever their spelling.
    static func instant(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return milliseconds.isFinite && abs(milliseconds) < 9e18 ? String(Int64(milliseconds)) : String(milliseconds)
    }

    /// An optional instant as text (empty when absent).
    static func instant(_ date: Date?) -> String { date.map(instant) ?? "" }

    /// A value as text, numbers by their value (`72` and `72.0` are one value).
    static func value(_ text: String?) -> String {
        guard let text else { return "" }
        if let number = Double(text), number.isFinite { return "\(number)" }
        return text
    }

    static func md5(_ bytes: [UInt8]) -> [UInt8] { AttachmentDigest.md5(bytes) }

    /// 16 bytes as uppercase hex in 8-4-4-4-12 groups.
    static func hexGroups(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in digest.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
