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
        /// The time, as CouchDB writes it in checkpoint history.
        public var clock: @Sendable () -> String

        /// Creates a configuration.
        public init(
            batchSize: Int = 1_000, continuous: Bool = false, longpoll: Duration = .seconds(10),
            filter: ReplicationFilter = .none, sessionID: String, useCheckpoints: Bool = true,
            clock: @escaping @Sendable () -> String
        ) {
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
        case peersRead(sourceIdentity: String, targetIdentity: String)
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

    /// The options the machine was created with.
    public let configuration: Configuration
    private(set) var state = State.initial
    /// The replication id, once the peers are known.
    public private(set) var replicationID: String?
    /// Counters for the history and for progress.
    public private(set) var stats = ReplicationStats()
    /// The sequence replication resumed from.
    public private(set) var startSeq: JSONValue = 0
    /// The sequence recorded in the last checkpoint (or resumed from).
    public private(set) var checkpointedSeq: JSONValue = 0
    /// The sequence the current batch ends at.
    public private(set) var batchSeq: JSONValue = 0
    /// How many changes the source says remain, when it says.
    public private(set) var pending: Int?
    private var batch: [PeerChange] = []
    private var previousHistory: [ReplicationLog.Entry] = []
    private var startTime = ""
    private var drained = false

    /// Creates a machine.
    public init(_ configuration: Configuration) {
        self.configuration = configuration
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

        case (.readingPeers, .peersRead(let source, let target)):
            let id = ReplicationID.make(source: source, target: target, filter: configuration.filter)
            replicationID = id
            guard configuration.useCheckpoints else { return readChanges() }
            state = .readingCheckpoints
            return .readCheckpoints(id: id)

        case (.readingCheckpoints, .checkpointsRead(let source, let target)):
            startSeq = ReplicationLog.startSequence(source: source, target: target)
            checkpointedSeq = startSeq
            batchSeq = startSeq
            previousHistory = Self.history(source)
            return readChanges()

        case (.readingChanges, .changesRead(let page)):
            pending = page.pending
            batch = page.changes
            stats.changesRead += page.changes.count
            if page.changes.isEmpty {
                drained = true
                batchSeq = page.lastSeq
                return checkpointOrContinue()
            }
            batchSeq = page.lastSeq
            drained = page.pending == 0 || page.changes.count < configuration.batchSize
            var revisions: [String: [String]] = [:]
            for change in page.changes { revisions[change.id, default: []].append(contentsOf: change.revs) }
            stats.missingChecked += revisions.values.reduce(0) { $0 + $1.count }
            state = .diffing
            return .revsDiff(revisions)

        case (.diffing, .diffed(let answer)):
            let requests = batch.flatMap { change -> [RevisionRequest] in
                guard let missing = answer[change.id] else { return [] }
                return missing.missing.filter(change.revs.contains).map {
                    RevisionRequest(id: change.id, rev: $0, attachmentsSince: missing.possibleAncestors)
                }
            }
            // A rev listed twice (two rows for one id) is fetched once.
            var seen = Set<RevisionRequest>()
            let unique = requests.filter { seen.insert($0).inserted }
            stats.missingFound += unique.count
            if unique.isEmpty { return checkpointOrContinue() }
            state = .fetching
            return .fetch(unique)

        case (.fetching, .fetched(let revisions)):
            var documents: [JSONObject] = []
            for revision in revisions {
                switch revision {
                case .document(let document): documents.append(document)
                case .missing: stats.docWriteFailures += 1  // gone from the source since the feed was read
                }
            }
            stats.docsRead += documents.count
            uploading = documents.count
            if documents.isEmpty { return checkpointOrContinue() }
            state = .writing
            return .write(documents)

        case (.writing, .written(let failures)):
            stats.docWriteFailures += failures.count
            stats.docsWritten += max(0, uploading - failures.count)
            return checkpointOrContinue()

        case (.checkpointing, .checkpointWritten):
            checkpointedSeq = batchSeq
            return nextAfterCheckpoint()

        default:
            preconditionFailure("Replication event \(event) is not expected in state \(state)")
        }
    }

    /// How many documents the current upload carries.
    private var uploading = 0

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
    private mutating func checkpointOrContinue() -> Action {
        if configuration.useCheckpoints, batchSeq != checkpointedSeq, let id = replicationID {
            state = .checkpointing
            return .writeCheckpoint(id: id, log: log())
        }
        checkpointedSeq = batchSeq
        return nextAfterCheckpoint()
    }

    private mutating func nextAfterCheckpoint() -> Action {
        if drained && !configuration.continuous {
            state = .finished
            return .finish(stats)
        }
        return readChanges()
    }

    private func log() -> ReplicationLog {
        let entry = ReplicationLog.Entry(
            sessionID: configuration.sessionID, recordedSeq: batchSeq, stats: stats, startTime: startTime,
            endTime: configuration.clock(), startLastSeq: startSeq)
        let history = [entry] + previousHistory.filter { $0.sessionID != configuration.sessionID }
        return ReplicationLog(
            sessionID: configuration.sessionID, sourceLastSeq: batchSeq,
            history: Array(history.prefix(ReplicationLog.maximumHistory)))
    }

    /// Earlier sessions' entries of a stored log, kept when this session writes its own.
    private static func history(_ log: JSONObject?) -> [ReplicationLog.Entry] {
        (log?["history"]?.arrayValue ?? []).compactMap { entry in
            guard let session = entry["session_id"]?.stringValue, let seq = entry["recorded_seq"] ?? entry["last_seq"]
            else { return nil }
            var stats = ReplicationStats()
            stats.docsRead = Int(entry["docs_read"]?.numberValue?.int64Value ?? 0)
            stats.docsWritten = Int(entry["docs_written"]?.numberValue?.int64Value ?? 0)
            stats.missingChecked = Int(entry["missing_checked"]?.numberValue?.int64Value ?? 0)
            stats.missingFound = Int(entry["missing_found"]?.numberValue?.int64Value ?? 0)
            stats.docWriteFailures = Int(entry["doc_write_failures"]?.numberValue?.int64Value ?? 0)
            return ReplicationLog.Entry(
                sessionID: session, recordedSeq: seq, stats: stats,
                startTime: entry["start_time"]?.stringValue ?? "", endTime: entry["end_time"]?.stringValue ?? "",
                startLastSeq: entry["start_last_seq"] ?? 0)
        }
    }
}
