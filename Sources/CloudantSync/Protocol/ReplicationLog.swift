public import CloudantCore
public import Foundation

/// A replication's checkpoint document (`_local/<replication id>`), written on both peers after
/// each batch, in CouchDB's shape plus PouchDB's `last_seq` names so either tool can read it when debugging.
///
/// Only our own reader depends on it: `session_id`, `source_last_seq` and each history entry's
/// `session_id` and `recorded_seq`.
public struct ReplicationLog: Sendable, Hashable {
    /// One checkpoint of one session (newest first in ``history``).
    public struct Entry: Sendable, Hashable {
        /// The session that wrote it.
        public var sessionID: String
        /// The source sequence every change up to which was written.
        public var recordedSeq: JSONValue
        /// Statistics of the session so far.
        public var stats: ReplicationStats
        /// When the session started (an HTTP date, as CouchDB writes).
        public var startTime: String
        /// When this checkpoint was written (an HTTP date).
        public var endTime: String
        /// The sequence the session started from.
        public var startLastSeq: JSONValue
    }

    /// The session that wrote the log last.
    public var sessionID: String
    /// The source sequence replicated up to.
    public var sourceLastSeq: JSONValue
    /// Earlier checkpoints, newest first, at most ``maximumHistory``.
    public var history: [Entry]

    /// CouchDB keeps 50 history entries.
    public static let maximumHistory = 50

    /// A history entry's time as CouchDB writes it: an RFC 1123 date in GMT (`Mon, 30 Nov 2026 12:00:00 GMT`).
    public static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// The document body (without `_id`/`_rev`).
    public var json: JSONObject {
        [
            "session_id": .string(sessionID), "source_last_seq": sourceLastSeq, "last_seq": sourceLastSeq,
            "replication_id_version": 4, "replicator": "otfcloudantstore", "version": 1,
            "history": .array(
                history.map { entry in
                    [
                        "session_id": .string(entry.sessionID), "recorded_seq": entry.recordedSeq,
                        "last_seq": entry.recordedSeq, "start_last_seq": entry.startLastSeq,
                        "end_last_seq": entry.recordedSeq, "start_time": .string(entry.startTime),
                        "end_time": .string(entry.endTime),
                        "missing_checked": .number(JSONNumber(entry.stats.missingChecked)),
                        "missing_found": .number(JSONNumber(entry.stats.missingFound)),
                        "docs_read": .number(JSONNumber(entry.stats.docsRead)),
                        "docs_written": .number(JSONNumber(entry.stats.docsWritten)),
                        "doc_write_failures": .number(JSONNumber(entry.stats.docWriteFailures)),
                    ]
                }),
        ]
    }

    /// Where to resume, given the logs read from both peers: the source's sequence when
    /// both were written by the same session, else the newest checkpoint both sides recorded, else `0`.
    public static func startSequence(source: JSONObject?, target: JSONObject?) -> JSONValue {
        compare(source: source, target: target).seq
    }

    /// The history a replication resumes, as `compare_replication_logs/2` finds it: the source's whole history
    /// when both logs name the same session, the entries after the newest one both histories share, none when
    /// nothing matches. Its first entry's statistics are where the new session's count from (`init_state/1`'s
    /// `HistoryStats`).
    public static func resumedHistory(source: JSONObject?, target: JSONObject?) -> [JSONValue] {
        compare(source: source, target: target).history
    }

    /// `compare_replication_logs/2` and `compare_rep_history/2`: the sequence to resume from and the history
    /// resumed, found in one walk of both logs.
    static func compare(source: JSONObject?, target: JSONObject?) -> (seq: JSONValue, history: [JSONValue]) {
        guard let source, let target else { return (0, []) }
        if let sourceSession = source["session_id"]?.stringValue, sourceSession == target["session_id"]?.stringValue,
            let seq = source["source_last_seq"] ?? source["last_seq"]
        {
            return (seq, source["history"]?.arrayValue ?? [])
        }
        var sourceHistory = entries(source)
        var targetHistory = entries(target)
        while let sourceHead = sourceHistory.first, let targetHead = targetHistory.first {
            if targetHistory.contains(where: { $0.session == sourceHead.session }) {
                return (sourceHead.seq, sourceHistory.dropFirst().map(\.entry))
            }
            if sourceHistory.dropFirst().contains(where: { $0.session == targetHead.session }) {
                return (targetHead.seq, targetHistory.dropFirst().map(\.entry))
            }
            sourceHistory.removeFirst()
            targetHistory.removeFirst()
        }
        return (0, [])
    }

    private static func entries(_ log: JSONObject) -> [(session: String, seq: JSONValue, entry: JSONValue)] {
        (log["history"]?.arrayValue ?? []).compactMap { entry in
            guard let session = entry["session_id"]?.stringValue, let seq = entry["recorded_seq"] ?? entry["last_seq"]
            else { return nil }
            return (session, seq, entry)
        }
    }
}

/// What a replication did.
public struct ReplicationStats: Sendable, Hashable {
    /// Revisions whose presence on the target was checked (`_revs_diff`).
    public var missingChecked = 0
    /// Revisions the target lacked.
    public var missingFound = 0
    /// Revisions read from the source.
    public var docsRead = 0
    /// Revisions the target accepted.
    public var docsWritten = 0
    /// Revisions that were not written, after a second attempt: the target refused them (`forbidden`,
    /// `unauthorized`, `missing_stub`), they vanished from the source, or the source sent them in a form that
    /// cannot be written. Each is in ``failures``.
    public var docWriteFailures = 0
    /// Changes-feed rows processed.
    public var changesRead = 0
    /// Each revision counted in ``docWriteFailures``, with its id, revision, error and reason, in the order
    /// they failed. The replication's checkpoint never moves past the first of them, so running it again
    /// tries them again.
    public var failures: [WriteFailure] = []

    /// No work yet.
    public init() {}
}
