internal import Crypto
internal import Foundation

/// `_approx_count_distinct`'s estimate (`couch_hyper` with precision 11): each key's Erlang external term
/// format is hashed with SHA-1, whose first 11 bits pick one of 2048 registers and whose next 53 bits give a
/// run of leading zeros the register keeps the longest of.
///
/// Up to about 1800 distinct keys the estimate is the linear-counting one CouchDB answers with, so small
/// counts match CouchDB's exactly; above that CouchDB subtracts an empirical bias table this store does not
/// carry, so both are within HyperLogLog's error of the true count but may differ from each other.
struct HyperLogLog: Sendable {
    static let precision = 11
    static let registerCount = 1 << precision
    private var registers = [UInt8](repeating: 0, count: registerCount)

    /// Adds a key's bytes.
    mutating func insert(_ bytes: [UInt8]) {
        var hash: UInt64 = 0
        for byte in Insecure.SHA1.hash(data: bytes).prefix(8) { hash = hash << 8 | UInt64(byte) }
        let index = Int(hash >> UInt64(64 - Self.precision))
        let rest = hash << UInt64(Self.precision)
        // The zeros before the first one among the 53 bits after the index, plus one.
        let zeros = rest == 0 ? 64 - Self.precision : rest.leadingZeroBitCount
        let value = UInt8(min(zeros, 64 - Self.precision) + 1)
        if value > registers[index] { registers[index] = value }
    }

    /// The estimated number of distinct keys, rounded as Erlang's `round`.
    var cardinality: Int {
        let m = Double(Self.registerCount)
        var sum = 0.0
        var empty = 0
        for register in registers {
            sum += 1.0 / Double(UInt64(1) << UInt64(register))
            if register == 0 { empty += 1 }
        }
        let alpha = 0.7213 / (1 + 1.079 / m)
        let raw = alpha * m * m / sum
        let estimate = empty == 0 ? raw : m * Foundation.log(m / Double(empty))
        return Int((estimate <= 1800 ? estimate : raw).rounded())
    }
}
