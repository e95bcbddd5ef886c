internal import Synchronization

/// Carries an ``AutomaticSync``'s events to every ``AutomaticSync/events()`` sequence and to its delegate.
///
/// A class of its own, not actor state, because progress arrives synchronously on the replicators' tasks
/// (``ReplicatorDelegate``): hopping onto the actor for each step could reorder steps against the events the
/// actor sends.
final class SyncEventChannel: Sendable {
    private struct State {
        var subscribers: [Int: AsyncStream<SyncEvent>.Continuation] = [:]
        var nextID = 0
        weak var delegate: (any AutomaticSyncDelegate)?
        weak var owner: AutomaticSync?
        /// The running sync's share done so far, so reported progress never goes down.
        var fraction = 0.0
    }

    private let state = Mutex(State())

    deinit {
        let subscribers = state.withLock { $0.subscribers.values }
        for subscriber in subscribers { subscriber.finish() }
    }

    /// The sync the delegate is told about (weak: the sync owns this channel).
    func attach(_ owner: AutomaticSync) { state.withLock { $0.owner = owner } }

    var delegate: (any AutomaticSyncDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// A new sequence of every event from now on; it ends when the sync is released or its consumer stops.
    func subscribe(buffering limit: Int = 256) -> AsyncStream<SyncEvent> {
        let (stream, continuation) = AsyncStream<SyncEvent>.makeStream(bufferingPolicy: .bufferingNewest(limit))
        let id = state.withLock { state in
            state.nextID += 1
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Tells the delegate a sync is about to start.
    func requestSynchronization() {
        let (delegate, owner) = state.withLock { ($0.delegate, $0.owner) }
        if let delegate, let owner { delegate.didRequestSynchronization(owner) }
    }

    /// Delivers `event` to every sequence, then to the delegate.
    func send(_ event: SyncEvent) {
        let (subscribers, delegate, owner) = state.withLock { state in
            if case .started = event { state.fraction = 0 }
            return (Array(state.subscribers.values), state.delegate, state.owner)
        }
        for subscriber in subscribers { subscriber.yield(event) }
        if let delegate, let owner { delegate.automaticSync(owner, didReport: event) }
    }

    /// Delivers a replication step as a ``SyncEvent/progress(_:)``, and its fraction to the delegate.
    func progress(_ direction: SyncDirection, _ step: ReplicationProgress) {
        let fraction = state.withLock { state in
            state.fraction = max(state.fraction, Self.fraction(direction, step))
            return state.fraction
        }
        send(.progress(SyncProgress(direction: direction, replication: step, fractionCompleted: fraction)))
        let (delegate, owner) = state.withLock { ($0.delegate, $0.owner) }
        if let delegate, let owner { delegate.automaticSync(owner, didUpdateProgress: fraction) }
    }

    /// The pull is the first half, the push the second; within one, changes read against those pending.
    private static func fraction(_ direction: SyncDirection, _ step: ReplicationProgress) -> Double {
        let done: Double
        switch step.state {
        case .complete:
            done = 1
        case .active, .idle, .failed, .cancelled, .retrying, .stopped:
            let read = Double(step.stats.changesRead)
            let total = read + Double(step.pending ?? 0)
            done = total > 0 && step.pending != nil ? read / total : 0
        }
        return direction == .pull ? done / 2 : 0.5 + done / 2
    }
}

/// Forwards one replication's steps to the channel, named by direction.
final class SyncProgressRelay: ReplicatorDelegate {
    let direction: SyncDirection
    let channel: SyncEventChannel

    init(_ direction: SyncDirection, _ channel: SyncEventChannel) {
        self.direction = direction
        self.channel = channel
    }

    func replicator(_ replicator: Replicator, didReport progress: ReplicationProgress) {
        channel.progress(direction, progress)
    }
}
