internal import CloudantCore
internal import Foundation

/// The shell around ``ReplicationStateMachine``: a session performs the machine's actions from its start to
/// its finish (or the first failure that outlasts the request's retries); a continuous replication starts a
/// new session from the checkpoint after each failure that may pass, waiting by ``ContinuousRetry``.
extension Replicator {
    /// How a session ended without a failure.
    enum SessionEnd {
        /// The source was drained (one-shot).
        case finished
        /// ``stop()`` was asked for, at a batch boundary.
        case stopped
    }

    /// Runs sessions until the replication is over.
    func replicate() async throws -> ReplicationStats {
        var carried = ReplicationStats()
        var failuresInARow = 0
        while true {
            var machine = makeMachine(carrying: carried)
            let started = ContinuousClock.now
            do {
                switch try await session(&machine) {
                case .finished: report(.complete, machine.stats)
                case .stopped: report(.stopped, machine.stats)
                }
                progressContinuation.finish()
                return machine.stats
            } catch {
                carried = machine.stats
                let failure = CloudantError.replicating(error, cancelled: Task.isCancelled)
                if failure.code == .cancelled {
                    if stopping.isRequested, !Task.isCancelled {
                        // A stop that cut a request short at a batch boundary: nothing was half done.
                        report(.stopped, carried)
                        progressContinuation.finish()
                        return carried
                    }
                    report(.cancelled, carried)
                    progressContinuation.finish()
                    throw failure
                }
                guard options.continuous, failure.isRetryable, !stopping.isRequested else {
                    report(.failed, carried, error: failure)
                    progressContinuation.finish()
                    throw failure
                }
                // CouchDB's scheduler: a job that ran long enough before crashing starts its count again.
                let healthy = ContinuousClock.now - started >= options.continuousRetry.healthyAfter
                failuresInARow = healthy ? 1 : failuresInARow + 1
                let delay = options.continuousRetry.backoff.delay(afterFailures: failuresInARow)
                report(.retrying, carried, error: failure, retryDelay: delay)
                do {
                    guard try await stopping.interruptible({ try await Task.sleep(for: delay) }) != nil else {
                        report(.stopped, carried)
                        progressContinuation.finish()
                        return carried
                    }
                } catch {
                    report(.cancelled, carried)
                    progressContinuation.finish()
                    throw CloudantError.cancelled(url: nil)
                }
            }
        }
    }

    private func makeMachine(carrying stats: ReplicationStats) -> ReplicationStateMachine {
        let clock = options.now
        var configuration = ReplicationStateMachine.Configuration(
            batchSize: options.batchSize, continuous: options.continuous, longpoll: options.longpoll,
            filter: options.filter, sessionID: options.makeSessionID(), useCheckpoints: options.useCheckpoints,
            initialStats: stats, clock: { ReplicationLog.timestamp(clock()) })
        configuration.sinceSequence = options.sinceSequence
        return ReplicationStateMachine(configuration)
    }

    /// Performs `machine`'s actions from its start until it finishes, is stopped at a batch boundary, or a
    /// request fails after its retries (thrown; `machine` then holds the statistics so far).
    func session(_ machine: inout ReplicationStateMachine) async throws -> SessionEnd {
        let retry = options.retry
        let (source, target) = (self.source, self.target)
        var writeSourceCheckpoints = true
        var ahead: Speculation?
        var action = machine.event(.start)
        while true {
            try Task.checkCancellation()
            switch action {
            case .readPeers:
                let identities = try await stopping.interruptible {
                    async let sourceIdentity = retry.run { try await source.identity() }
                    async let targetIdentity = retry.run { try await target.identity() }
                    _ = try await retry.run { try await source.info() }
                    _ = try await retry.run { try await target.info() }
                    let filterSource = try await retry.run { try await self.filterSource() }
                    return (try await sourceIdentity, try await targetIdentity, filterSource)
                }
                guard let identities else { return .stopped }
                action = machine.event(
                    .peersRead(sourceIdentity: identities.0, targetIdentity: identities.1, filterSource: identities.2))
            case .readCheckpoints(let id):
                let documentID = "_local/" + id
                let logs = try await stopping.interruptible {
                    async let sourceLog = retry.run { try await source.localDocument(id: documentID) }
                    async let targetLog = retry.run { try await target.localDocument(id: documentID) }
                    return Logs(source: try await sourceLog, target: try await targetLog)
                }
                guard let logs else { return .stopped }
                action = machine.event(.checkpointsRead(source: logs.source, target: logs.target))
            case .readChanges(let request):
                // A batch boundary: the checkpoint of everything before is written.
                guard !stopping.isRequested else { return .stopped }
                if request.longpoll != nil { report(.idle, machine.stats, pending: machine.pending, machine: machine) }
                let page: ChangesPage
                if let ready = ahead?.page, ahead?.since == request.since {
                    page = ready
                } else {
                    ahead = nil
                    guard let read = try await stopping.interruptible({ try await retry.run { try await source.changes(request) } })
                    else { return .stopped }
                    page = read
                }
                action = machine.event(.changesRead(page))
                report(.active, machine.stats, pending: machine.pending, machine: machine)
            case .revsDiff(let revisions):
                let diff: [String: MissingRevisions]
                if let ready = ahead?.diff, ahead?.diffRequest == revisions {
                    diff = ready
                } else {
                    ahead = nil
                    diff = try await retry.run { try await target.revsDiff(revisions) }
                }
                action = machine.event(.diffed(diff))
            case .fetch(let requests):
                let fetched: [FetchedRevision]
                if let ready = ahead?.fetched, ahead?.fetchRequests == requests {
                    fetched = ready
                } else {
                    fetched = try await fetch(requests)
                }
                ahead = nil
                action = machine.event(.fetched(fetched))
            case .write(let documents):
                // Read the next batch while this one is written (see `Speculation`).
                let snapshot = machine
                let reading = Task { [weak self] () -> Speculation? in
                    guard let self else { return nil }
                    return await Speculation.run(after: snapshot, source: source, target: target) { try await self.fetch($0) }
                }
                let failures: [WriteFailure]
                do {
                    failures = try await upload(documents)
                } catch {
                    reading.cancel()
                    throw error
                }
                action = machine.event(.written(failures))
                ahead = await reading.value
                report(.active, machine.stats, pending: machine.pending)
            case .writeCheckpoint(let id, let log):
                let documentID = "_local/" + id
                try await retry.run { try await target.ensureFullCommit() }
                try await retry.run { try await target.putLocalDocument(id: documentID, body: log.json) }
                if writeSourceCheckpoints {
                    do {
                        try await retry.run { try await source.putLocalDocument(id: documentID, body: log.json) }
                    } catch let failure as CloudantError where failure.context.status.map({ (400..<500).contains($0) }) == true {
                        // A read-only source: keep going with target checkpoints only.
                        writeSourceCheckpoints = false
                    }
                }
                action = machine.event(.checkpointWritten)
            case .finish:
                return .finished
            }
        }
    }

    /// The checkpoint documents read from both peers.
    private struct Logs: Sendable {
        var source: JSONObject?
        var target: JSONObject?
    }
}

/// A request to stop at the next batch boundary (``Replicator/stop()``), and the waits it ends early.
final class StopRequest: @unchecked Sendable {
    // `lock` protects `requested`, `waits` and `next`.
    private let lock = NSLock()
    private var requested = false
    private var waits: [Int: @Sendable () -> Void] = [:]
    private var next = 0

    /// Whether a stop was asked for.
    var isRequested: Bool { lock.withLock { requested } }

    /// Asks for a stop, and ends every wait in progress.
    func request() {
        let ending = lock.withLock {
            requested = true
            return Array(waits.values)
        }
        for end in ending { end() }
    }

    /// Runs `work` (a wait that holds nothing half done: reading changes, sleeping before a retry); returns nil
    /// without waiting for it to finish when a stop is asked for, before or during it.
    /// - Throws: What `work` throws, or `CancellationError` when the caller is cancelled.
    func interruptible<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T? {
        let task = Task { try await work() }
        let (token, stopped) = lock.withLock {
            next += 1
            waits[next] = { task.cancel() }
            return (next, requested)
        }
        defer { _ = lock.withLock { waits.removeValue(forKey: token) } }
        if stopped { task.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            if isRequested && !Task.isCancelled { return nil }
            throw error
        }
    }
}
