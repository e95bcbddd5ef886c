internal import Crypto
internal import Foundation

/// `_approx_count_distinct`'s estimate, `couch_hyper`'s at precision 11: each key's Erlang external term format
/// (``ErlangTerm/externalFormat(of:)``) is hashed with SHA-1, whose first 11 bits pick one of 2048 registers and
/// whose next 53 bits give a run of leading zeros the register keeps the longest of.
///
/// The estimate is CouchDB's step for step, so the same keys give the same count: linear counting while it is at
/// most 1800, otherwise the raw HyperLogLog estimate less the empirical bias near it (``HyperLogLogBias``, while
/// the raw estimate is at most five times the register count). An estimate, not the true count: linear counting
/// already departs from it after a few dozen distinct keys.
struct HyperLogLog: Sendable {
    static let precision = 11
    static let registerCount = 1 << precision
    private var registers = [UInt8](repeating: 0, count: registerCount)

    /// An empty sketch.
    init() {}

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

    /// Keeps, in each register, the greater of its value and `other`'s: the sketch of both sketches' keys
    /// (`couch_hyper:union/1`).
    mutating func formUnion(_ other: HyperLogLog) {
        for index in registers.indices where other.registers[index] > registers[index] {
            registers[index] = other.registers[index]
        }
    }

    /// The registers that are set, as text: five hexadecimal digits each, three for the register's index and
    /// two for its value, in index order. A sketch of a few hundred keys sets at most as many of its 2048
    /// registers, so this is a fraction of their bytes.
    var packed: String {
        var text: [UInt8] = []
        let digits = Array("0123456789abcdef".utf8)
        for (index, value) in registers.enumerated() where value != 0 {
            for shift in [8, 4, 0] { text.append(digits[(index >> shift) & 0xF]) }
            text.append(digits[Int(value >> 4)])
            text.append(digits[Int(value & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The sketch ``packed`` wrote; nil for text it cannot have written.
    init?(packed: String) {
        let text = Array(packed.utf8)
        guard text.count % 5 == 0 else { return nil }
        /// Lowercase hexadecimal digits as a number, read from the bytes in place (a query merges thousands).
        func hex(_ digits: ArraySlice<UInt8>) -> Int? {
            var number = 0
            for byte in digits {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): number = number << 4 | Int(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): number = number << 4 | Int(byte - UInt8(ascii: "a") + 10)
                default: return nil
                }
            }
            return number
        }
        for start in stride(from: 0, to: text.count, by: 5) {
            guard let index = hex(text[start..<start + 3]), let value = hex(text[start + 3..<start + 5]),
                index < Self.registerCount, value <= 64 - Self.precision + 1
            else { return nil }
            registers[index] = UInt8(value)
        }
    }

    /// The estimated number of distinct keys, rounded as Erlang's `round` (`couch_hyper:card/1`).
    var cardinality: Int {
        let m = Double(Self.registerCount)
        var sum = 0.0
        var empty = 0
        for register in registers {
            sum += 1.0 / Double(UInt64(1) << UInt64(register))
            if register == 0 { empty += 1 }
        }
        let alpha = 0.7213 / (1 + 1.079 / m)
        let raw = alpha * (m * m) / sum
        let corrected = raw <= 5 * m ? raw - Self.bias(near: raw) : raw
        let estimate = empty == 0 ? corrected : m * Foundation.log(m / Double(empty))
        return Int((estimate <= 1800 ? estimate : corrected).rounded())
    }

    /// The mean bias of the six measured estimates nearest `raw` (ties to the earlier, as `lists:keysort` keeps
    /// them), summed in that order as `lists:sum` does.
    static func bias(near raw: Double) -> Double {
        let estimates = HyperLogLogBias.estimates
        let nearest = estimates.indices
            .map { (distance: Foundation.pow(raw - estimates[$0], 2), index: $0) }
            .sorted { ($0.distance, $0.index) < ($1.distance, $1.index) }
            .prefix(6)
        return nearest.reduce(0.0) { $0 + HyperLogLogBias.biases[$1.index] } / Double(nearest.count)
    }
}
