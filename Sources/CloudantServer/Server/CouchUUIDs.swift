internal import Foundation

/// New ids the way CouchDB's `couch_uuids` makes them, for `/_uuids` and for documents written without an
/// `_id`, by the algorithm `uuids/algorithm` names:
///
/// - `sequential` (CouchDB's default): a random 26-hex-digit prefix and a 6-digit counter that grows by a
///   random step below 4,094, a new prefix once the counter passes `fff000`. Ids sort in the order they were
///   made, which keeps a database's id b-tree appending.
/// - `utc_random`: 14 hex digits of microseconds since 1970, then 18 random ones.
/// - `utc_id`: the same time prefix, then `uuids/utc_id_suffix`.
/// - `random`: 32 random hex digits.
///
/// The time-based forms never repeat or go backwards: a clock that has not moved gives the last time plus one
/// microsecond. A change of algorithm or suffix starts afresh, as CouchDB's config listener does.
final class CouchUUIDs: Sendable {
    /// The algorithms `uuids/algorithm` may name.
    static let algorithms: Set<String> = ["sequential", "random", "utc_random", "utc_id"]

    private struct State {
        var algorithm = ""
        var suffix = ""
        var prefix = ""
        var counter = 0
        var clock: Int64 = 0
    }

    private let state = Locked(State())
    /// Where `uuids/algorithm` and `uuids/utc_id_suffix` are read, at each id (a change applies at once).
    private let node: NodeConfiguration

    init(node: NodeConfiguration) { self.node = node }

    /// The next id, by the algorithm the node's configuration names (`sequential` for a name it does not know).
    func next() -> String {
        let (algorithm, suffix) = node.uuidAlgorithm
        return state.withLock { state in
            if state.algorithm != algorithm || state.suffix != suffix {
                state = State(algorithm: algorithm, suffix: suffix, prefix: Self.newPrefix(), counter: Self.step(), clock: Self.micros())
            }
            switch algorithm {
            case "random":
                return Hex.encode(SecureRandom.bytes(16))
            case "utc_random", "utc_id":
                let now = Self.micros()
                state.clock = now > state.clock ? now : state.clock + 1
                let time = String(state.clock, radix: 16)
                let padded = String(repeating: "0", count: max(0, 14 - time.count)) + time
                return padded + (algorithm == "utc_id" ? suffix : Hex.encode(SecureRandom.bytes(9)))
            default:
                let counter = String(state.counter, radix: 16)
                let id = state.prefix + String(repeating: "0", count: max(0, 6 - counter.count)) + counter
                if state.counter >= 0xfff000 {
                    state.prefix = Self.newPrefix()
                    state.counter = Self.step()
                } else {
                    state.counter += Self.step()
                }
                return id
            }
        }
    }

    private static func newPrefix() -> String { Hex.encode(SecureRandom.bytes(13)) }

    /// `rand:uniform(16#ffd)`: 1 to 4,093.
    private static func step() -> Int { Int.random(in: 1...0xffd) }

    private static func micros() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000
    }
}
