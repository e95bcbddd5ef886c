internal import CloudantCore
internal import CloudantStore
internal import CloudantSync
internal import CloudantSyncNIO
internal import Foundation

/// The server's replication jobs, as `couch_replicator_scheduler` keeps them: each runs a ``Replicator`` between a
/// database of this server or a URL and another, reports in `/_scheduler/jobs`, `/_scheduler/docs` and
/// `/_active_tasks`, and ends by completion, cancellation or (for a job `POST /_replicate` made) its first crash.
/// A job a `_replicator` document made never gives up: after each crash it starts again from its checkpoint,
/// after ``ReplicatorSettings/backoff(afterCrashes:)``.
final class ReplicationScheduler: Sendable {
    /// How a job ended.
    enum Outcome: Sendable {
        /// A one-shot job drained its source; `log` is the source's checkpoint document after it and
        /// `sessionID` the session that ran (a log of another session means nothing changed).
        case completed(ReplicationStats, log: JSONObject?, sessionID: String)
        case cancelled
        /// A transient job crashed: CouchDB's `{error, reason}`.
        case failed(CrashReason)
    }

    /// One job: its record, and what runs it.
    final class Job: Sendable {
        let spec: ReplicationSpec
        let baseID: String
        let record: Locked<ReplicationJobRecord>
        /// The replicator of the current attempt, and the task running the attempts.
        private let control = Locked<(replicator: Replicator?, task: Task<Outcome, Never>?, cancelled: Bool)>((nil, nil, false))

        init(spec: ReplicationSpec, baseID: String, record: ReplicationJobRecord) {
            self.spec = spec
            self.baseID = baseID
            self.record = Locked(record)
        }

        var isTransient: Bool { record.withLock { $0.database == nil } }
        var isCancelled: Bool { control.withLock { $0.cancelled } }

        func attach(_ replicator: Replicator) -> Bool {
            control.withLock { state in
                state.replicator = replicator
                return !state.cancelled
            }
        }

        func attach(_ task: Task<Outcome, Never>) { control.withLock { $0.task = task } }

        func cancel() {
            let (replicator, task) = control.withLock { state in
                state.cancelled = true
                return (state.replicator, state.task)
            }
            replicator?.cancel()
            task?.cancel()
        }

        /// Waits for the job's end.
        func outcome() async -> Outcome {
            guard let task = control.withLock({ $0.task }) else { return .cancelled }
            return await task.value
        }
    }

    let registry: DatabaseRegistry
    private let baseSettings: ReplicatorSettings
    private let node: NodeConfiguration?
    /// The server's settings with what the node configuration's `replicator` section sets now: read for each job
    /// as it starts, so a change over `/_node/{node}/_config` applies to the next one.
    var settings: ReplicatorSettings { node?.replicatorSettings(over: baseSettings) ?? baseSettings }
    /// Told when a job from a document completes, to write its state into the document.
    let onDocumentJobCompleted: Locked<(@Sendable (Job, ReplicationStats) async -> Void)?> = Locked(nil)
    private let jobs = Locked([String: Job]())
    private let transport = AsyncHTTPClientTransport()

    init(registry: DatabaseRegistry, settings: ReplicatorSettings, node: NodeConfiguration? = nil) {
        self.registry = registry
        self.baseSettings = settings
        self.node = node
    }

    var healthThreshold: TimeInterval { Self.seconds(settings.healthThreshold) }

    // MARK: Jobs

    /// The replication id of `spec` with its option suffix, computed as the replicator names its checkpoints.
    /// - Throws: ``HTTPFailure`` as ``peers(of:)`` does when a local database is missing (`cancel` and
    ///   `_local_id` need the id before anything runs).
    func replicationID(of spec: ReplicationSpec) async throws -> (base: String, full: String) {
        let replicator = try await makeReplicator(spec, sessionID: "", preparing: false)
        let base = try await replicator.replicationID()
        return (base, base + spec.idSuffix)
    }

    /// Adds a job and starts it, unless one with the same id runs already (then that one is returned, as
    /// `couch_replicator_scheduler:add_job/1` keeps the existing job).
    func add(
        _ spec: ReplicationSpec, id: (base: String, full: String), database: String?, documentID: String?, user: String?
    ) -> Job {
        let record = ReplicationJobRecord(
            id: id.full, spec: spec, database: database, documentID: documentID, user: user, now: Date())
        let (job, isNew) = jobs.withLock { jobs -> (Job, Bool) in
            if let existing = jobs[id.full] { return (existing, false) }
            let job = Job(spec: spec, baseID: id.base, record: record)
            jobs[id.full] = job
            return (job, true)
        }
        if isNew {
            let task = Task { await self.run(job) }
            job.attach(task)
        }
        return job
    }

    /// The job with replication id `id`. A space stands for a `+`, as `couch_replicator_ids:convert/1` reads
    /// it: a path's `+` is decoded as a space (`chttpd/decode_plus_to_space`), and ids are `base+extensions`.
    func job(_ id: String) -> Job? {
        let id = id.replacingOccurrences(of: " ", with: "+")
        return jobs.withLock { $0[id] }
    }

    /// The job started by document `documentID` of `_replicator`.
    func job(forDocument documentID: String) -> Job? {
        jobs.withLock { jobs in jobs.values.first { $0.record.withLock { $0.documentID } == documentID } }
    }

    /// Every job, sorted by id.
    func allJobs() -> [Job] {
        jobs.withLock { Array($0.values) }.sorted { $0.record.withLock(\.id) < $1.record.withLock(\.id) }
    }

    /// Cancels and removes a job (`remove_job/1`).
    @discardableResult
    func remove(_ id: String) -> Bool {
        guard let job = jobs.withLock({ $0.removeValue(forKey: id) }) else { return false }
        job.cancel()
        return true
    }

    /// Cancels every job (the server stops); their checkpoints let them resume after a restart.
    func stopAll() async {
        let all = jobs.withLock { jobs in
            defer { jobs.removeAll() }
            return Array(jobs.values)
        }
        for job in all { job.cancel() }
        for job in all { _ = await job.outcome() }
    }

    // MARK: Running

    /// Runs a job's attempts until it completes, is cancelled, or (transient) crashes.
    private func run(_ job: Job) async -> Outcome {
        let outcome = await attempts(job)
        let id = job.record.withLock(\.id)
        jobs.withLock { jobs in
            if jobs[id] === job { jobs[id] = nil }
        }
        if case .completed(let stats, _, _) = outcome, !job.isTransient, let notify = onDocumentJobCompleted.withLock({ $0 }) {
            await notify(job, stats)
        }
        return outcome
    }

    private func attempts(_ job: Job) async -> Outcome {
        while !job.isCancelled {
            let sessionID = Hex.encode(SecureRandom.bytes(16))
            do {
                let replicator = try await makeReplicator(job.spec, sessionID: sessionID, preparing: true)
                guard job.attach(replicator) else { return .cancelled }
                job.record.withLock { record in
                    record.record(.started, at: Date())
                    record.isRunning = true
                }
                let watcher = Task { await self.watch(replicator, of: job) }
                let stats = try await replicator.run()
                await watcher.value
                job.record.withLock { $0.isRunning = false }
                let log = try? await replicator.source.localDocument(id: "_local/" + job.baseID)
                return .completed(stats, log: log, sessionID: sessionID)
            } catch {
                if job.isCancelled || Task.isCancelled { return .cancelled }
                let reason = CrashReason(error, spec: job.spec)
                let crashes = job.record.withLock { record in
                    record.isRunning = false
                    record.record(.crashed(reason: reason.reason), at: Date())
                    return record.consecutiveCrashes(healthThreshold: healthThreshold)
                }
                // A transient job is removed at its first crash (`handle_crashed_job/3`).
                if job.isTransient { return .failed(reason) }
                do {
                    try await Task.sleep(for: settings.backoff(afterCrashes: max(crashes, 1)))
                } catch {
                    return .cancelled
                }
            }
        }
        return .cancelled
    }

    /// Follows a replicator's progress into the job's record: statistics, and for a continuous replication the
    /// crashes it waits out (a transient job is removed at the first, as CouchDB removes it).
    private func watch(_ replicator: Replicator, of job: Job) async {
        for await step in replicator.progress {
            let transientCrash = job.record.withLock { record -> Bool in
                record.stats = step.stats
                record.pending = step.pending
                if let through = step.throughSequence { record.throughSeq = through }
                if let checkpointed = step.checkpointedSequence { record.checkpointedSeq = checkpointed }
                switch step.state {
                case .active, .idle:
                    if !record.isRunning {
                        record.record(.started, at: Date())
                        record.isRunning = true
                    }
                case .retrying:
                    record.isRunning = false
                    let reason = step.error.map { CrashReason($0, spec: job.spec).reason } ?? "unknown"
                    record.record(.crashed(reason: reason), at: Date())
                    return record.database == nil
                case .complete, .failed, .cancelled, .stopped:
                    break
                }
                return false
            }
            if transientCrash {
                let id = job.record.withLock(\.id)
                remove(id)
            }
        }
    }

    // MARK: Peers

    /// A replicator for `spec`; when `preparing`, checks both databases exist (creating the target when asked),
    /// as `couch_replicator_api_wrap:db_open/3` does before a job starts.
    private func makeReplicator(_ spec: ReplicationSpec, sessionID: String, preparing: Bool) async throws -> Replicator {
        let timeout = spec.connectionTimeout ?? settings.connectionTimeout
        let source = try await peer(spec.source, create: false, preparing: preparing, timeout: timeout)
        let target = try await peer(spec.target, create: spec.createTarget, preparing: preparing, timeout: timeout)
        var filter = ReplicationFilter.none
        if let ids = spec.documentIDs { filter = .documentIDs(ids) }
        if let selector = spec.selector { filter = .selector(try MangoSelector(selector)) }
        if let function = spec.filter { filter = .designFunction(name: function.name, parameters: function.parameters) }
        var options = ReplicationOptions(
            batchSize: spec.batchSize ?? 500, continuous: spec.continuous, filter: filter, useCheckpoints: spec.useCheckpoints,
            retry: RetryPolicy(maximumAttempts: settings.retriesPerRequest + 1),
            makeSessionID: { sessionID })
        options.sinceSequence = spec.sinceSeq
        options.continuousRetry = ContinuousRetry(
            backoff: Backoff(initial: settings.backoffInterval, maximum: settings.backoff(afterCrashes: 11), multiplier: 2, jitter: 0),
            healthyAfter: settings.healthThreshold)
        return Replicator(source: source, target: target, options: options)
    }

    private func peer(
        _ endpoint: ReplicationEndpoint, create: Bool, preparing: Bool, timeout: Duration
    ) async throws -> any ReplicationPeer {
        switch endpoint.location {
        case .local(let name):
            if let store = try? await registry.store(name) { return LocalPeer(store) }
            if create, let store = try? await registry.create(name) { return LocalPeer(store) }
            if let store = try? await registry.store(name) { return LocalPeer(store) }
            throw CrashReason(error: "db_not_found", reason: "could not open \(endpoint.display)")
        case .remote(let url, let headers):
            let peer = try HTTPPeer(
                url: url, headers: headers, timeout: timeout, transport: transport)
            guard preparing else { return peer }
            if create { try await peer.createIfMissing() }
            do {
                _ = try await peer.info()
            } catch let refusal as CloudantError where refusal.code == .peerRefused {
                switch refusal.category {
                case .notFound: throw CrashReason(error: "db_not_found", reason: "could not open \(endpoint.display)")
                case .unauthorized, .forbidden:
                    throw CrashReason(error: "unauthorized", reason: "unauthorized to access or create database \(endpoint.display)")
                default: throw refusal
                }
            }
            return peer
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// Why a job crashed, as CouchDB names it: `db_not_found` with `could not open <url>`, `unauthorized`, or the
/// replicator's own error.
struct CrashReason: Error, Sendable {
    var error: String
    var reason: String

    init(error: String, reason: String) {
        self.error = error
        self.reason = reason
    }

    init(_ error: any Error, spec: ReplicationSpec) {
        switch error {
        case let crash as CrashReason:
            self = crash
        case let failure as CloudantError where failure.code == .notFound:
            self.init(error: "db_not_found", reason: "could not open \(spec.source.display)")
        case let failure as CloudantError where failure.code == .peerRefused && [.unauthorized, .forbidden].contains(failure.category):
            self.init(error: "unauthorized", reason: failure.description)
        case let failure as CloudantError where failure.code == .peerUnreachable || failure.code == .peerTimedOut:
            self.init(error: "http_request_failed", reason: failure.description)
        case let failure as CloudantError where failure.code.isPeerFailure:
            self.init(error: failure.category.couchDBError, reason: failure.description)
        case let failure as CloudantError:
            self.init(error: failure.category.couchDBError, reason: failure.message)
        default:
            self.init(error: "unknown_error", reason: String(describing: error))
        }
    }
}
