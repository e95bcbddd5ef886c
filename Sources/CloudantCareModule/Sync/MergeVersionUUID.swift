public import Foundation

/// The uuid of the merge version that resolves a conflict, derived from what it merges: two devices that
/// resolve the same conflict the same way write the same version instead of a new conflict, which
/// would start the same resolution again on each device.
public enum MergeVersionUUID {
    /// A uuid (RFC 9562 version 8, "custom") hashed from the chosen version and the sorted parent uuids.
    public static func make(chosen: UUID, parents: [UUID]) -> UUID {
        let text = ([chosen] + parents.sorted { $0.uuidString < $1.uuidString }).map(\.uuidString).joined(separator: ",")
        var bytes = Array(fnv1a(text, seed: 0xcbf2_9ce4_8422_2325).bigEndianBytes)
        bytes += fnv1a(text, seed: 0x8422_2325_cbf2_9ce4).bigEndianBytes
        bytes[6] = (bytes[6] & 0x0f) | 0x80
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
    }

    private static func fnv1a(_ text: String, seed: UInt64) -> UInt64 {
        var hash = seed
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}

extension UInt64 {
    fileprivate var bigEndianBytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: self >> (56 - 8 * $0)) } }
}
