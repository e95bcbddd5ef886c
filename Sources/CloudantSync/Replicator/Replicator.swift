internal import CloudantCore
internal import Foundation

/// Replicates one way, source → target, with CouchDB's replication protocol: checkpoints on both
/// sides so a restarted replication resumes, `_revs_diff` so only missing revisions move, fetches in
/// parallel, uploads with `new_edits: false` so histories and conflicts arrive intact, and retries with
/// backoff on dropped connections, 408, 429 and 5xx.
///
/// ```swift
/// let pull = Replicator(source: HTTPPeer(url: cluster), target: LocalPeer(store))
/// Task { for await step in pull.progress { print(step.documentsProcessed, step.pending ?? 0) } }
/// let stats = try await pull.run()
/// ```
///
/// The protocol itself is ``ReplicationStateMachine``; this type performs its requests. Cancel the task
/// running ``run()`` (or call ``cancel()``) to stop; a continuous replication runs until then.
public final class Replicator: Sendable {
    /// Where documents come from.
    public let source: any ReplicationPeer
    /// Where they go.
    public let target: any ReplicationPeer
    /// How.
    public let options: ReplicationOptions
    /// Told of every step, on the replicator's task.
    public let delegate: (any ReplicatorDelegate)?
    /// Every step, as it happens; finishes when the replication stops.
    public let progress: AsyncStream<ReplicationProgress>

    private let progressContinuation: AsyncStream<ReplicationProgress>.Continuation
    private let running = RunningTask()

    /// Creates a replicator; nothing happens until ``run()``.
    public init(
        source: any ReplicationPeer, target: any ReplicationPeer, options: ReplicationOptions = ReplicationOptions(),
        delegate: (any ReplicatorDelegate)? = nil
    ) {
        self.source = source
        self.target = target
        self.options = options
        self.delegate = delegate
        (progress, progressContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Stops a running replication (as cancelling its task does).
    public func cancel() { running.cancel() }

    /// Runs the replication: until the source is drained (one-shot), or until cancelled (continuous).
    ///
    /// - Returns: What moved.
    /// - Throws: ``ReplicationError``, always: the failure that stopped it after retries
    ///   (``ReplicationError/peerUnreachable(url:reason:)``, ``ReplicationError/unauthorized(url:status:reason:)``,
    ///   ``ReplicationError/peerRefused(url:status:error:reason:)``, ``ReplicationError/timedOut(url:status:)``),
    ///   ``ReplicationError/localFailure(url:underlying:)`` when this side's store failed, or
    ///   ``ReplicationError/cancelled(url:)``.
    @discardableResult
    public func run() async throws -> ReplicationStats {
        let work = Task { try await self.replicate() }
        running.set(work)
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }

    // MARK: The shell

    private func replicate() async throws -> ReplicationStats {
        let clock = options.now
        var machine = ReplicationStateMachine(
            ReplicationStateMachine.Configuration(
                batchSize: options.batchSize, continuous: options.continuous, longpoll: options.longpoll,
                filter: options.filter, sessionID: options.makeSessionID(), useCheckpoints: options.useCheckpoints,
                clock: { HTTPDate.format(clock()) }))
        let retry = options.retry
        let (source, target) = (self.source, self.target)
        var writeSourceCheckpoints = true
        var ahead: Speculation?
        var action = machine.event(.start)
        do {
            while true {
                try Task.checkCancellation()
                switch action {
                case .readPeers:
                    async let sourceIdentity = retry.run { try await source.identity() }
                    async let targetIdentity = retry.run { try await target.identity() }
                    _ = try await retry.run { try await source.info() }
                    _ = try await retry.run { try await target.info() }
                    action = machine.event(.peersRead(sourceIdentity: try await sourceIdentity, targetIdentity: try await targetIdentity))
                case .readCheckpoints(let id):
                    let documentID = "_local/" + id
                    async let sourceLog = retry.run { try await source.localDocument(id: documentID) }
                    async let targetLog = retry.run { try await target.localDocument(id: documentID) }
                    action = machine.event(.checkpointsRead(source: try await sourceLog, target: try await targetLog))
                case .readChanges(let request):
                    if request.longpoll != nil { report(machine, .idle) }
                    let page: ChangesPage
                    if let ready = ahead?.page, ahead?.since == request.since {
                        page = ready
                    } else {
                        ahead = nil
                        page = try await retry.run { try await source.changes(request) }
                    }
                    action = machine.event(.changesRead(page))
                    report(machine, .active)
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
                        let complete = try await SeparateAttachments.transfer(documents, from: source, to: target, retry: retry)
                        failures = try await retry.run { try await target.write(complete) }
                    } catch {
                        reading.cancel()
                        throw error
                    }
                    action = machine.event(.written(failures))
                    ahead = await reading.value
                    report(machine, .active)
                case .writeCheckpoint(let id, let log):
                    let documentID = "_local/" + id
                    try await retry.run { try await target.ensureFullCommit() }
                    try await retry.run { try await target.putLocalDocument(id: documentID, body: log.json) }
                    if writeSourceCheckpoints {
                        do {
                            try await retry.run { try await source.putLocalDocument(id: documentID, body: log.json) }
                        } catch let failure as ReplicationError where failure.status.map({ (400..<500).contains($0) }) == true {
                            // A read-only source: keep going with target checkpoints only.
                            writeSourceCheckpoints = false
                        }
                    }
                    action = machine.event(.checkpointWritten)
                case .finish(let stats):
                    report(machine, .complete)
                    progressContinuation.finish()
                    return stats
                }
            }
        } catch {
            let failure = ReplicationError.wrapping(error, cancelled: Task.isCancelled)
            if case .cancelled = failure { report(machine, .cancelled) } else { report(machine, .failed) }
            progressContinuation.finish()
            throw failure
        }
    }

    /// Fetches in chunks, several at once; results keep the requests' order.
    private func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] {
        // Large attachments move on their own when both peers can (see `SeparateAttachments`).
        let limit =
            source.sendsLargeAttachmentsSeparately && target.receivesLargeAttachmentsSeparately
            ? options.separateAttachmentSize : nil
        let source = self.source
        let fetchPart: @Sendable ([RevisionRequest]) async throws -> [FetchedRevision] = { part in
            if let limit { return try await source.fetch(part, inlineAttachmentLimit: limit) }
            return try await source.fetch(part)
        }
        return try await fetch(requests, with: fetchPart)
    }

    /// Fetches in chunks with `fetchPart`, several at once; results keep the requests' order.
    private func fetch(
        _ requests: [RevisionRequest], with fetchPart: @escaping @Sendable ([RevisionRequest]) async throws -> [FetchedRevision]
    ) async throws -> [FetchedRevision] {
        let chunk = max(1, options.fetchChunk)
        let chunks = stride(from: 0, to: requests.count, by: chunk).map { Array(requests[$0..<min($0 + chunk, requests.count)]) }
        if chunks.count == 1 { return try await options.retry.run { try await fetchPart(chunks[0]) } }
        let (retry, width) = (options.retry, max(1, options.fetchConcurrency))
        return try await withThrowingTaskGroup(of: (Int, [FetchedRevision]).self) { group in
            var results: [[FetchedRevision]] = Array(repeating: [], count: chunks.count)
            var next = 0
            func launch() {
                let index = next
                let part = chunks[index]
                group.addTask { (index, try await retry.run { try await fetchPart(part) }) }
                next += 1
            }
            while next < min(width, chunks.count) { launch() }
            while let (index, part) = try await group.next() {
                results[index] = part
                if next < chunks.count { launch() }
            }
            return results.flatMap { $0 }
        }
    }

    private func report(_ machine: ReplicationStateMachine, _ state: ReplicationProgress.State) {
        let step = ReplicationProgress(state: state, stats: machine.stats, pending: machine.pending)
        progressContinuation.yield(step)
        delegate?.replicator(self, didReport: step)
    }
}

/// The task of a running replication, so ``Replicator/cancel()`` can reach it.
final class RunningTask: @unchecked Sendable {
    // `lock` protects `task` and `cancelled`.
    private let lock = NSLock()
    private var task: Task<ReplicationStats, any Error>?
    private var cancelled = false

    func set(_ task: Task<ReplicationStats, any Error>) {
        let cancelNow = lock.withLock {
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let current = lock.withLock {
            cancelled = true
            return task
        }
        current?.cancel()
    }
}

/// CouchDB's history timestamps: RFC 1123 dates in GMT.
enum HTTPDate {
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }
}
