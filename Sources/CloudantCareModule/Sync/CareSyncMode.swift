internal import Foundation

/// How concurrent versions of a care object (two devices edited the same version) are settled when stores sync:
/// CareKit's knowledge vectors, or ParseCareKit's wall clock. Either way, knowledge vectors still say *what* is
/// new to whom, so a sync sends only changes; the mode decides only *who wins*.
///
/// ```swift
/// // Devices: each resolves on its own, with a policy.
/// try await phone.synchronize(with: transport, mode: .knowledgeVector(.newest))
/// // Or: the server decides, by its own clock. The server answers in the same mode.
/// try await phone.synchronize(with: transport, mode: .wallClock)
/// let answer = try await server.respond(to: message, mode: .wallClock)
/// ```
///
/// ## Choosing
///
/// ``knowledgeVector(_:)`` keeps causality: a version that saw another replaces it, and only versions that did
/// not see each other are concurrent. Those reach the policy (``CareConflictPolicy``), which can keep one or
/// merge both (``CareConflictPolicy/custom(_:)``), so no edit is dropped without the app deciding.
///
/// ``wallClock`` is ParseCareKit's `ParseSynchronizedStoreManager`: the server stamps each version with its own
/// clock when the version first reaches it, and among concurrent versions the one stamped last wins; the
/// server writes the merge version and every device pulls it. It is simpler to reason about ("the last sync
/// wins") and needs no resolver, at a price:
/// - **Concurrent edits are lost, not merged.** Two devices that edit the same task offline each keep their
///   edit until they sync; the one that reaches the server later wins whole, and the other's change (even to
///   a different field) survives only as a superseded version in the history.
/// - **Arrival, not intent, decides.** A device that was offline for a week and syncs last overwrites edits
///   made after its own; device clocks (`updatedDate`) play no part.
/// - **One clock must be trusted.** A server clock stepped back (NTP, a restored VM, several servers behind a
///   balancer with drifting clocks) reorders arrivals, and then an earlier edit wins.
/// - **No causality.** The stamp says when the server heard of a version, not what its author had seen.
///
/// ParseCareKit's own advice holds: use the wall clock with one device per user (a phone and a server), and
/// knowledge vectors when several devices edit the same records.
public enum CareSyncMode: Sendable {
    /// CareKit's knowledge vectors: each device settles concurrent versions with `policy` after pulling
    /// (``CareStore/synchronize(with:policy:)``); the responder never resolves.
    case knowledgeVector(CareConflictPolicy)
    /// Last writer by server time: the responder stamps versions on arrival by its clock (``CareStore``'s
    /// `now`) and keeps the concurrent version it stamped last; devices pull its decision.
    case wallClock

    /// The version the server stamped last among `tips`: by server time (unknown times first), then by
    /// `updatedDate`, then by uuid, so every store that knows the same stamps picks the same version.
    static func latestByServerTime(_ tips: [CareEntity], serverTimes: [UUID: Date]) -> CareEntity? {
        tips.max { first, second in
            let (a, b) = (first.versioned, second.versioned)
            return (serverTimes[a.uuid] ?? .distantPast, a.updatedDate ?? .distantPast, a.uuid.uuidString)
                < (serverTimes[b.uuid] ?? .distantPast, b.updatedDate ?? .distantPast, b.uuid.uuidString)
        }
    }
}
