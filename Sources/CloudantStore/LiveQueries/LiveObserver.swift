internal import CloudantCore

/// What the ``LiveQueryHub`` hands each committed change to.
protocol LiveObserver: AnyObject, Sendable {
    /// Called with the changes committed since the last call, in order (`purged`: documents were purged,
    /// which the changes feed cannot show). Must be quick: it runs on the hub's task for every commit.
    func consider(_ changes: [Change], purged: Bool)
    /// The store closed or its feed failed: no more calls will come.
    func finish()
}

/// Wakes its consumer (coalesced) when a committed change satisfies a predicate: what a module builds a
/// live view on when its answer is not one Mango query (the care module's events with their outcomes).
final class ChangeWatcher: LiveObserver {
    let signals: AsyncStream<Void>
    private let signal: AsyncStream<Void>.Continuation
    private let isRelevant: @Sendable (Change) -> Bool

    init(where isRelevant: @escaping @Sendable (Change) -> Bool) {
        self.isRelevant = isRelevant
        (signals, signal) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    func consider(_ changes: [Change], purged: Bool) {
        if purged || changes.contains(where: isRelevant) { signal.yield() }
    }

    func finish() {
        signal.finish()
    }
}
