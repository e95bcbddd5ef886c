internal import CloudantCore
internal import CloudantSync
internal import Foundation

/// What the scheduler knows of one replication job, and the rules `couch_replicator_scheduler` derives its
/// reported state from: an event history (newest first, at most 20 events), whether a replicator runs now, and
/// the statistics it last reported. Pure values, so the state rules are tested without a network.
struct ReplicationJobRecord: Sendable {
    /// One entry of a job's history (`couch_replicator_scheduler:job_ejson/1`'s `history`).
    enum Event: Sendable, Equatable {
        case added
        case started
        case crashed(reason: String)
        case stopped

        var type: String {
            switch self {
            case .added: "added"
            case .started: "started"
            case .crashed: "crashed"
            case .stopped: "stopped"
            }
        }
    }

    /// CouchDB keeps the 20 newest events (`[replicator] max_history`).
    static let maximumHistory = 20

    /// The replication id with its option suffix (`base+continuous`).
    let id: String
    let source: String
    let target: String
    /// `_replicator` for a job a document made; nil for one `POST /_replicate` made.
    let database: String?
    let documentID: String?
    let user: String?
    let continuous: Bool
    let startTime: Date
    private(set) var history: [(event: Event, time: Date)]
    /// Whether a replicator runs now (CouchDB's `pid` is set).
    var isRunning = false
    var stats = ReplicationStats()
    var pending: Int?
    var checkpointedSeq: JSONValue = 0
    var throughSeq: JSONValue = 0

    init(id: String, spec: ReplicationSpec, database: String?, documentID: String?, user: String?, now: Date) {
        self.id = id
        source = spec.source.display
        target = spec.target.display
        self.database = database
        self.documentID = documentID
        self.user = user
        continuous = spec.continuous
        startTime = now
        history = [(.added, now)]
    }

    /// Records an event.
    mutating func record(_ event: Event, at time: Date) {
        history.insert((event, time), at: 0)
        if history.count > Self.maximumHistory { history.removeLast(history.count - Self.maximumHistory) }
    }

    /// Crashes in a row (`consecutive_crashes/2`): a crash that came more than `healthThreshold` after the event
    /// before it ends the streak, as does a stop right after a start.
    func consecutiveCrashes(healthThreshold: TimeInterval) -> Int {
        var count = 0
        var index = 0
        while index < history.count {
            let current = history[index]
            if case .crashed = current.event, index + 1 < history.count {
                if current.time.timeIntervalSince(history[index + 1].time) > healthThreshold { return count }
                count += 1
                index += 1
                continue
            }
            if current.event == .stopped, index + 1 < history.count, history[index + 1].event == .started { return count }
            index += 1
        }
        return count
    }

    /// The state and its `info` as `job_summary/2` reports them: `running` while a replicator runs, `crashing`
    /// after a crash, `pending` otherwise.
    func summary(healthThreshold: TimeInterval) -> (state: String, info: JSONValue, errorCount: Int) {
        let errorCount = consecutiveCrashes(healthThreshold: healthThreshold)
        if isRunning { return ("running", statsJSON, errorCount) }
        if case .crashed(let reason)? = history.first?.event { return ("crashing", ["error": .string(reason)], errorCount) }
        return ("pending", statsJSON, errorCount)
    }

    /// The statistics object CouchDB reports as a running job's `info` (`rep_stats/1`); `null` before any.
    var statsJSON: JSONValue {
        [
            "revisions_checked": .number(JSONNumber(stats.missingChecked)),
            "missing_revisions_found": .number(JSONNumber(stats.missingFound)),
            "docs_read": .number(JSONNumber(stats.docsRead)),
            "docs_written": .number(JSONNumber(stats.docsWritten)),
            "changes_pending": pending.map { .number(JSONNumber($0)) } ?? .null,
            "doc_write_failures": .number(JSONNumber(stats.docWriteFailures)),
            // Every document this replicator reads is read with `_bulk_get` (or its `open_revs` fallback).
            "bulk_get_docs": .number(JSONNumber(stats.docsRead)),
            "bulk_get_attempts": .number(JSONNumber(stats.docsRead)),
            "checkpointed_source_seq": checkpointedSeq,
        ]
    }

    /// The job as `GET /_scheduler/jobs` lists it (`job_ejson/1`).
    func jobJSON(node: String) -> JSONValue {
        [
            "id": .string(id),
            "pid": isRunning ? .string("<0.\(abs(id.hashValue % 10_000)).0>") : .null,
            "source": .string(source),
            "target": .string(target),
            "database": database.map(JSONValue.string) ?? .null,
            "user": user.map(JSONValue.string) ?? .null,
            "doc_id": documentID.map(JSONValue.string) ?? .null,
            "info": statsJSON,
            "history": .array(
                history.map { entry in
                    var object: JSONObject = ["timestamp": .string(CouchTime.iso8601(entry.time)), "type": .string(entry.event.type)]
                    if case .crashed(let reason) = entry.event { object["reason"] = .string(reason) }
                    return .object(object)
                }),
            "node": .string(node),
            "start_time": .string(CouchTime.iso8601(startTime)),
        ]
    }

    /// The job's document as `GET /_scheduler/docs` lists it while it is scheduled (`ejson_doc/2`).
    func documentJSON(healthThreshold: TimeInterval, node: String) -> JSONValue {
        let summary = summary(healthThreshold: healthThreshold)
        return [
            "database": database.map(JSONValue.string) ?? .null,
            "doc_id": documentID.map(JSONValue.string) ?? .null,
            "id": .string(id),
            "node": .string(node),
            "source": .string(source),
            "target": .string(target),
            "state": .string(summary.state),
            "info": summary.info,
            "error_count": .number(JSONNumber(summary.errorCount)),
            "last_updated": .string(CouchTime.iso8601(history.first?.time ?? startTime)),
            "start_time": .string(CouchTime.iso8601(startTime)),
            "source_proxy": .null,
            "target_proxy": .null,
        ]
    }

    /// The job as `/_active_tasks` lists a running replication.
    func activeTaskJSON(node: String) -> JSONValue {
        let started = Int(startTime.timeIntervalSince1970)
        let updated = Int((history.first?.time ?? startTime).timeIntervalSince1970)
        return [
            "type": "replication",
            "node": .string(node),
            "pid": .string("<0.\(abs(id.hashValue % 10_000)).0>"),
            "replication_id": .string(id),
            "database": database.map(JSONValue.string) ?? .null,
            "doc_id": documentID.map(JSONValue.string) ?? .null,
            "user": user.map(JSONValue.string) ?? .null,
            "continuous": .bool(continuous),
            "source": .string(source),
            "target": .string(target),
            "started_on": .number(JSONNumber(started)),
            "updated_on": .number(JSONNumber(updated)),
            "revisions_checked": .number(JSONNumber(stats.missingChecked)),
            "missing_revisions_found": .number(JSONNumber(stats.missingFound)),
            "docs_read": .number(JSONNumber(stats.docsRead)),
            "docs_written": .number(JSONNumber(stats.docsWritten)),
            "doc_write_failures": .number(JSONNumber(stats.docWriteFailures)),
            "changes_pending": pending.map { .number(JSONNumber($0)) } ?? .null,
            "checkpointed_source_seq": checkpointedSeq,
            "through_seq": throughSeq,
        ]
    }
}

/// CouchDB's timestamps in scheduler answers: `YYYY-MM-DDTHH:MM:SSZ`, UTC, whole seconds
/// (`couch_replicator_utils:iso8601/1`), written by the package's one ISO 8601 writer.
enum CouchTime {
    static func iso8601(_ date: Date) -> String {
        ISO8601Timestamp.string(from: date, fractionalSeconds: false) ?? ""
    }
}
