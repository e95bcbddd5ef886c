public import CloudantCore

/// CouchDB's replication protocol as a state machine: it is told what happened and answers
/// with the next request to make. It does no I/O, so every step — resuming from checkpoints, batching,
/// diffing, failures, continuous mode — is tested without a network; ``Replicator`` is the thin shell
/// that performs each ``Action`` against the peers.
///
/// ```swift
/// var machine = ReplicationStateMachine(configuration)
/// var action = machine.event(.start)          // .readPeers
/// action = machine.event(.peersRead(sourceIdentity: "local:a", targetIdentity: "local:b"))
/// // .readCheckpoints(id: "…"), then .readChanges(…), .revsDiff(…), .fetch(…), .write(…), .writeCheckpoint(…)
/// ```
///
/// Batches are processed one at a time, so a checkpoint always records a sequence every earlier change of
/// which is on the target.
public struct ReplicationStateMachine: Sendable {
    /// What the machine needs to know up front.
    public struct Configuration: Sendable {
        /// Changes per batch.
        public var batchSize: Int
        /// Keep listening after the feed is drained.
        public var continuous: Bool
        /// How long one wait for changes lasts in continuous mode.
        public var longpoll: Duration
        /// Which documents replicate.
        public var filter: ReplicationFilter
        /// This run's id.
        public var sessionID: String
        /// Checkpoints are written and read (`use_checkpoints`).
        public var useCheckpoints: Bool
        /// The statistics to count on from: those of earlier sessions of the same replication (a continuous
        /// replication starting again after a failure), whose ``ReplicationStats/failures`` a later write of
        /// the same revision resolves.
        public var initialStats: ReplicationStats
        /// The time, as CouchDB writes it in checkpoint history.
        public var clock: @Sendable () -> String
        /// Where to start when there is no checkpoint yet (``ReplicationOptions/sinceSequence``).
        public var sinceSequence: JSONValue? = nil

        /// Creates a configuration.
        public init(
            batchSize: Int = 1_000, continuous: Bool = false, longpoll: Duration = .seconds(10),
            filter: ReplicationFilter = .none, sessionID: String, useCheckpoints: Bool = true,
            initialStats: ReplicationStats = ReplicationStats(), clock: @escaping @Sendable () -> String
        ) {
            self.initialStats = initialStats
            self.batchSize = batchSize
            self.continuous = continuous
            self.longpoll = longpoll
            self.filter = filter
            self.sessionID = sessionID
            self.useCheckpoints = useCheckpoints
            self.clock = clock
        }
    }

    /// What happened.
    public enum Event: Sendable {
        /// Begin.
        case start
        /// Both peers answered; their identities name the replication.
        case peersRead(sourceIdentity: String, targetIdentity: String, filterSource: String? = nil)
        /// The checkpoint documents (nil where absent).
        case checkpointsRead(source: JSONObject?, target: JSONObject?)
        /// A page of the source's changes feed.
        case changesRead(ChangesPage)
        /// The target's `_revs_diff` answer.
        case diffed([String: MissingRevisions])
        /// The revisions fetched from the source.
        case fetched([FetchedRevision])
        /// The target's answer to the upload.
        case written([WriteFailure])
        /// The checkpoint is on both peers.
        case checkpointWritten
    }

    /// What to do next.
    public enum Action: Sendable {
        /// Read both peers' info and identities.
        case readPeers
        /// Read `_local/<id>` on both peers.
        case readCheckpoints(id: String)
        /// Read the source's changes.
        case readChanges(ChangesRequest)
        /// Ask the target which revisions it lacks.
        case revsDiff([String: [String]])
        /// Fetch these revisions from the source.
        case fetch([RevisionRequest])
        /// Write these documents to the target with `new_edits: false`.
        case write([JSONObject])
        /// Write the log to `_local/<id>` on both peers.
        case writeCheckpoint(id: String, log: ReplicationLog)
        /// One-shot replication is complete.
        case finish(ReplicationStats)
    }

    enum State: Sendable {
        case initial, readingPeers, readingCheckpoints, readingChanges, diffing, fetching, writing, checkpointing
        case finished
    }

    /// A batch is tried twice: what failed the first time is read again with all its attachments and written
    /// again (CouchDB's replicator does the same for a `missing_stub` or a revision it could not read).
    enum Round: Sendable { case first, second }

    /// The options the machine was created with.
    public let configuration: Configuration
    var state = State.initial
    /// The replication id, once the peers are known.
    public private(set) var replicationID: String?
    /// Counters for the history and for progress.
    public internal(set) var stats = ReplicationStats()
    /// The sequence replication resumed from.
    public private(set) var startSeq: JSONValue = 0
    /// The sequence recorded in the last checkpoint (or resumed from).
    public private(set) var checkpointedSeq: JSONValue = 0
    /// The sequence the current batch ends at.
    public private(set) var batchSeq: JSONValue = 0
    /// The sequence every change up to which has been processed (written, or counted as failed): CouchDB's
    /// `through_seq`.
    public private(set) var throughSeq: JSONValue = 0
    /// How many changes the source says remain, when it says.
    public private(set) var pending: Int?
    /// The current page's changes, in feed order.
    var batch: [PeerChange] = []
    /// The sequence the current page was read from.
    var pageSince: JSONValue = 0
    /// The sequence checkpoints stay at once a revision failed (see ``recordedSeq``).
    var heldSeq: JSONValue?
    /// The current batch's attempt: the first, or the second for what failed in the first.
    var round = Round.first
    /// What the current round fetched, so failures and answers can be matched to it.
    var requested: [RevisionRequest] = []
    /// The revisions of the current upload, in order.
    var uploaded: [(id: String, rev: String)] = []
    /// Revisions to read again (with all their attachments) in the second round, and why each failed first.
    var retrying: [RevisionRequest: WriteFailure] = [:]
    /// Failures of the current batch that a second attempt did not resolve.
    var batchFailures: [WriteFailure] = []
    private var previousHistory: [ReplicationLog.Entry] = []
    /// The statistics of the history this session resumes: checkpoints count on from them, as CouchDB's
    /// replicator starts a job's statistics from its resumed history's latest entry.
    private var resumedStats = ReplicationStats()
    private var startTime = ""
    private var drained = false

    /// The ids a `doc_ids` filter replicates.
    private let onlyIDs: Set<String>?

    /// Creates a machine.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        stats = configuration.initialStats
        if case .documentIDs(let ids) = configuration.filter { onlyIDs = Set(ids) } else { onlyIDs = nil }
    }

    /// Whether the replication is over (one-shot only; continuous never finishes).
    public var isFinished: Bool { if case .finished = state { true } else { false } }

    /// Feeds an event; returns the next action.
    /// - Precondition: Events come in the order the actions ask for.
    public mutating func event(_ event: Event) -> Action {
        switch (state, event) {
        case (.initial, .start):
            state = .readingPeers
            startTime = configuration.clock()
            return .readPeers

        case (.readingPeers, .peersRead(let source, let target, let filterSource)):
            let id = ReplicationID.make(
                source: source, target: target, filter: configuration.filter, filterSource: filterSource,
                sinceSequence: configuration.sinceSequence)
            replicationID = id
            guard configuration.useCheckpoints else {
                if let since = configuration.sinceSequence {
                    (startSeq, checkpointedSeq, batchSeq, throughSeq) = (since, since, since, since)
                }
                return readChanges()
            }
            state = .readingCheckpoints
            return .readCheckpoints(id: id)

        case (.readingCheckpoints, .checkpointsRead(let source, let target)):
            let resumed = ReplicationLog.compare(source: source, target: target)
            // `since_seq` only where no checkpoint was found (`couch_replicator_scheduler_job:init_state/1` in
            // CouchDB 3.5.2): a checkpoint of this id was written by a run that started from it.
            startSeq = resumed.seq == 0 ? configuration.sinceSequence ?? 0 : resumed.seq
            checkpointedSeq = startSeq
            batchSeq = startSeq
            throughSeq = startSeq
            // CouchDB's job keeps the history `compare_replication_logs/2` resumed, not the source's whole log:
            // entries past a shared session would let a later run resume from work this target never saw.
            previousHistory = Self.history(resumed.history)
            resumedStats = resumed.history.first.map { Self.stats(of: $0) } ?? ReplicationStats()
            return readChanges()

        case (.readingChanges, .changesRead(let page)):
            pending = page.pending
            stats.changesRead += page.changes.count
            pageSince = batchSeq
            batchSeq = page.lastSeq
            if page.changes.isEmpty {
                batch = []
                drained = true
                return checkpointOrContinue()
            }
            batch = page.changes
            drained = page.pending == 0 || page.changes.count < (page.limit ?? configuration.batchSize)
            var revisions: [String: [String]] = [:]
            for change in page.changes {
                // A row the filter excludes (a source that ignored `doc_ids`) is read past, never replicated.
                if let only = onlyIDs, !only.contains(change.id) { continue }
                if let problem = change.problem {
                    // A row beyond the peer's limits: named and kept before the checkpoint, never diffed.
                    batchFailures.append(
                        WriteFailure(id: change.id, rev: change.revs.first, error: "bad_request", reason: problem))
                    continue
                }
                if !change.revs.isEmpty { revisions[change.id, default: []].append(contentsOf: change.revs) }
            }
            stats.missingChecked += revisions.values.reduce(0) { $0 + $1.count }
            if revisions.isEmpty { return finishRound() }
            state = .diffing
            return .revsDiff(revisions)

        case (.diffing, .diffed(let answer)):
            var requests: [RevisionRequest] = []
            var seen = Set<RevisionRequest>()
            for change in batch where change.problem == nil && onlyIDs?.contains(change.id) != false {
                guard let missing = answer[change.id] else { continue }
                // Only revisions this row asked about; a set, so 20,000 leaves cost 20,000 lookups.
                let asked = Set(change.revs)
                for rev in missing.missing where asked.contains(rev) {
                    let request = RevisionRequest(id: change.id, rev: rev, attachmentsSince: missing.possibleAncestors)
                    // A rev listed twice (two rows for one id) is fetched once.
                    if seen.insert(request).inserted { requests.append(request) }
                }
            }
            stats.missingFound += requests.count
            if requests.isEmpty { return finishRound() }
            return fetch(requests)

        case (.fetching, .fetched(let revisions)):
            return fetched(revisions)

        case (.writing, .written(let failures)):
            return written(failures)

        case (.checkpointing, .checkpointWritten):
            checkpointedSeq = recordedSeq
            return nextAfterCheckpoint()

        default:
            preconditionFailure("Replication event \(event) is not expected in state \(state)")
        }
    }


    // MARK: Steps

    private mutating func readChanges() -> Action {
        state = .readingChanges
        let waiting = configuration.continuous && drained
        return .readChanges(
            ChangesRequest(
                since: batchSeq, limit: configuration.batchSize, filter: configuration.filter,
                longpoll: waiting ? configuration.longpoll : nil))
    }

    /// After a batch (or an empty page): record the position if it moved, then read on or finish.
    mutating func checkpointOrContinue() -> Action {
        throughSeq = batchSeq
        if configuration.useCheckpoints, recordedSeq != checkpointedSeq, let id = replicationID {
            state = .checkpointing
            return .writeCheckpoint(id: id, log: log())
        }
        checkpointedSeq = recordedSeq
        return nextAfterCheckpoint()
    }

    /// The sequence a checkpoint records: where the batch ends, unless a revision failed earlier in this
    /// run; then the sequence just before the first failure, so the next run reads that change again.
    var recordedSeq: JSONValue { heldSeq ?? batchSeq }

    private mutating func nextAfterCheckpoint() -> Action {
        if drained && !configuration.continuous {
            state = .finished
            return .finish(stats)
        }
        return readChanges()
    }

    private func log() -> ReplicationLog {
        // This session's work counts on from the larger of what it was started with (a continuous replication
        // started again carries its earlier session's statistics) and the resumed history's latest entry, field
        // by field, as CouchDB's job starts from `couch_replicator_stats:max_stats/2` of the two: the carried
        // statistics and that entry both hold the earlier session's work, which a sum would count twice.
        let initial = configuration.initialStats
        var counted = stats
        for (_, field) in Self.entryCounts {
            counted[keyPath: field] += max(initial[keyPath: field], resumedStats[keyPath: field]) - initial[keyPath: field]
        }
        let entry = ReplicationLog.Entry(
            sessionID: configuration.sessionID, recordedSeq: recordedSeq, stats: counted, startTime: startTime,
            endTime: configuration.clock(), startLastSeq: startSeq)
        let history = [entry] + previousHistory.filter { $0.sessionID != configuration.sessionID }
        return ReplicationLog(
            sessionID: configuration.sessionID, sourceLastSeq: recordedSeq,
            history: Array(history.prefix(ReplicationLog.maximumHistory)))
    }

    /// The counts a history entry records, by their names in it.
    private static let entryCounts: [(name: String, field: any WritableKeyPath<ReplicationStats, Int> & Sendable)] = [
        ("docs_read", \.docsRead), ("docs_written", \.docsWritten), ("missing_checked", \.missingChecked),
        ("missing_found", \.missingFound), ("doc_write_failures", \.docWriteFailures),
    ]

    /// The statistics a history entry records.
    private static func stats(of entry: JSONValue) -> ReplicationStats {
        var stats = ReplicationStats()
        for (name, field) in entryCounts { stats[keyPath: field] = Int(entry[name]?.numberValue?.int64Value ?? 0) }
        return stats
    }

    /// The resumed history's entries, kept after this session's own when it writes a checkpoint.
    private static func history(_ entries: [JSONValue]) -> [ReplicationLog.Entry] {
        entries.compactMap { entry in
            guard let session = entry["session_id"]?.stringValue, let seq = entry["recorded_seq"] ?? entry["last_seq"]
            else { return nil }
            return ReplicationLog.Entry(
                sessionID: session, recordedSeq: seq, stats: stats(of: entry),
                startTime: entry["start_time"]?.stringValue ?? "", endTime: entry["end_time"]?.stringValue ?? "",
                startLastSeq: entry["start_last_seq"] ?? 0)
        }
    }
}
