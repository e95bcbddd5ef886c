import Foundation

/// A small, fast, deterministic random generator (Steele, Lea and Flood's SplitMix64), so a test that draws
/// random cases draws the same ones on every run, and a failing case can be repeated from its seed.
///
/// ```swift
/// var random = SplitMix64(seed: 7)
/// let value = Int.random(in: 0..<100, using: &random)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The seed the generator started from, for a failure message that lets the case be repeated.
    public let seed: UInt64
    private var state: UInt64

    /// A generator that yields the same sequence for the same `seed`.
    public init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// A generator seeded from `CLOUDANT_TEST_SEED` when it is set (to repeat a failing run), otherwise from the
    /// system's generator: for property tests that should see new cases on each run. Put ``seed`` in the
    /// failure message.
    public static func fromEnvironmentOrRandom() -> SplitMix64 {
        if let text = ProcessInfo.processInfo.environment["CLOUDANT_TEST_SEED"], let seed = UInt64(text) {
            return SplitMix64(seed: seed)
        }
        return SplitMix64(seed: UInt64.random(in: .min ... .max))
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
