internal import CloudantCore
internal import Foundation

/// Runs password derivations (PBKDF2, the costliest thing a request can ask for) away from Swift's cooperative
/// pool, a bounded number at a time, with a bounded queue shared by all names and a smaller share per client.
///
/// A derivation is CPU work that never suspends: run on a cooperative thread (two on two cores) a few of them
/// stall every task of the process, `/_up` included. Here at most ``width`` run at once, on threads of their
/// own; the rest wait in a queue of at most ``queueLimit`` jobs, of which one client address may hold at most
/// ``perClientLimit``. A job over either bound is refused at once, before any work (`429` for a client over
/// its share, `503` when the server's queue is full, each with `Retry-After`), so logins under a different
/// name do not buy an attacker more hashing, and a waiting job whose request goes away leaves the queue.
final class PasswordHashingPool: Sendable {
    /// Why a job was not taken.
    enum Refusal: Error, Equatable {
        /// The client already has ``PasswordHashingPool/perClientLimit`` jobs queued or running.
        case clientBusy
        /// ``PasswordHashingPool/queueLimit`` jobs are queued.
        case serverBusy
    }

    private struct Job {
        var id: UInt64
        var client: String?
        var run: @Sendable () -> Void
        var cancel: @Sendable () -> Void
    }

    private struct State {
        var queue: [Job] = []
        var running = 0
        var nextID: UInt64 = 0
        /// Jobs queued or running, by client address.
        var perClient: [String: Int] = [:]
        /// Jobs admitted but not queued yet, and those of them whose task was cancelled meanwhile: a
        /// cancellation that finds its job neither queued nor running is kept here for ``enqueue(_:)``.
        var unqueued: Set<UInt64> = []
        var cancelledBeforeQueued: Set<UInt64> = []
    }

    /// Derivations that may run at once.
    let width: Int
    /// Jobs that may wait.
    let queueLimit: Int
    /// Jobs (waiting or running) one client address may have.
    let perClientLimit: Int
    private let state = Locked(State())
    /// Threads of the pool's own (on Linux a Dispatch queue's threads are the cooperative pool's).
    private let threads: BlockingJobs

    /// - Parameters:
    ///   - width: derivations at once; by default one core in two, at least one.
    ///   - queueLimit: jobs that may wait for a thread.
    ///   - perClientLimit: jobs one client address may have waiting or running.
    init(
        width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2), queueLimit: Int = 64,
        perClientLimit: Int = 2
    ) {
        self.width = max(1, width)
        self.queueLimit = max(1, queueLimit)
        self.perClientLimit = max(1, perClientLimit)
        threads = BlockingJobs(name: "cloudant-hashing", width: self.width)
    }

    /// Jobs waiting for a thread (tests watch it).
    var waiting: Int { state.withLock { $0.queue.count } }

    /// Hashing threads at work (tests watch it).
    var running: Int { state.withLock { $0.running } }

    /// The jobs `client` has queued or running (tests watch it).
    func share(of client: String) -> Int { state.withLock { $0.perClient[client] ?? 0 } }

    /// Runs `work` on a hashing thread and returns its result.
    /// - Parameter client: the client's address (`nil` for the server's own work, which has no share).
    /// - Throws: ``Refusal`` when the client or the server has too many jobs; `CancellationError` when the task
    ///   is cancelled while the job waits (a running derivation finishes: it is bounded by the pinned cost).
    func run<T: Sendable>(client: String?, _ work: @escaping @Sendable () -> T) async throws -> T {
        let box = Locked<CheckedContinuation<T, any Error>?>(nil)
        let id: UInt64 = try state.withLock { state in
            if let client, state.perClient[client, default: 0] >= perClientLimit { throw Refusal.clientBusy }
            if state.queue.count >= queueLimit { throw Refusal.serverBusy }
            // The client's place is taken here, under the same lock as the check, so two requests at once cannot
            // both pass it.
            if let client { state.perClient[client, default: 0] += 1 }
            state.nextID += 1
            state.unqueued.insert(state.nextID)
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                box.withLock { $0 = continuation }
                let job = Job(
                    id: id, client: client,
                    run: { [self] in
                        let value = work()
                        // The client's share is given back before its request goes on, so a client that logs in
                        // again at once is not refused for the derivation it has just finished.
                        finished(client: client)
                        box.withLock { $0.take() }?.resume(returning: value)
                    },
                    cancel: { box.withLock { $0.take() }?.resume(throwing: CancellationError()) })
                enqueue(job)
            }
        } onCancel: {
            cancelWaiting(id)
        }
    }

    /// Queues a job, unless its task was cancelled since it was admitted: the cancellation handler may run on
    /// another thread at any moment before this, when it has no queued job to remove, and the job then ends at
    /// once instead of waiting for a thread with nobody left to answer.
    private func enqueue(_ job: Job) {
        let (queued, start) = state.withLock { state -> (Bool, Bool) in
            state.unqueued.remove(job.id)
            if state.cancelledBeforeQueued.remove(job.id) != nil { return (false, false) }
            state.queue.append(job)
            guard state.running < width else { return (true, false) }
            state.running += 1
            return (true, true)
        }
        guard queued else {
            finished(client: job.client)
            job.cancel()
            return
        }
        if start { threads.submit { [self] in drain() } }
    }

    /// A hashing thread: runs queued jobs until none is left.
    private func drain() {
        while let job = state.withLock({ state -> Job? in
            guard !state.queue.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.queue.removeFirst()
        }) {
            job.run()
        }
    }

    /// Removes a job that has not started, and fails its request.
    private func cancelWaiting(_ id: UInt64) {
        let removed = state.withLock { state -> Job? in
            guard let index = state.queue.firstIndex(where: { $0.id == id }) else {
                // Not queued yet: ``enqueue(_:)`` ends it. (Running or finished: nothing to do.)
                if state.unqueued.contains(id) { state.cancelledBeforeQueued.insert(id) }
                return nil
            }
            return state.queue.remove(at: index)
        }
        guard let removed else { return }
        finished(client: removed.client)
        removed.cancel()
    }

    /// Gives back a job's place in its client's share.
    private func finished(client: String?) {
        guard let client else { return }
        state.withLock { state in
            let left = state.perClient[client, default: 1] - 1
            state.perClient[client] = left > 0 ? left : nil
        }
    }
}

extension Optional {
    /// The value, leaving `nil` behind.
    fileprivate mutating func take() -> Wrapped? {
        defer { self = nil }
        return self
    }
}
