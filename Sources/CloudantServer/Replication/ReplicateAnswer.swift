internal import CloudantCore
internal import CloudantSync
internal import Foundation

/// The answer of a one-shot `POST /_replicate`, as `couch_replicator_scheduler_job` makes it from the checkpoint
/// it wrote: `session_id`, `source_last_seq`, `replication_id_version` and `history`, newest first, plus (for a
/// replication by `doc_ids`) the session's `start_time`, `end_time`, `docs_read`, `docs_written` and
/// `doc_write_failures` at the top, as CouchDB 1.0 answered them.
///
/// A session that checked changes but recorded no checkpoint (every change it read waits behind a revision
/// the target refused, which the next run tries again) still answers with its own history entry, so its
/// statistics are never lost; `no_changes: true` is for a session that found nothing to replicate (for a
/// replication by ids, none of its documents).
enum ReplicateAnswer {
    static func json(
        stats: ReplicationStats, log: JSONObject?, sessionID: String, byDocumentIDs: Bool, started: Date, ended: Date
    ) -> JSONObject {
        var answer: JSONObject = ["ok": true]
        let wrote = log?["session_id"]?.stringValue == sessionID
        let active = stats.missingChecked > 0 || stats.docsRead > 0 || stats.docWriteFailures > 0
        // A replication by ids reads the documents, not the feed: one that found none of them changed nothing,
        // whatever sequence its checkpoint moved to.
        if !active, !wrote || byDocumentIDs {
            answer["no_changes"] = true
            for key in ["session_id", "source_last_seq", "replication_id_version", "history"] {
                if let value = log?[key] { answer[key] = value }
            }
            return answer
        }
        if wrote, let log {
            for key in ["session_id", "source_last_seq", "replication_id_version", "history"] {
                if let value = log[key] { answer[key] = value }
            }
        } else {
            // The entry a checkpoint would have recorded, before the history the log already holds.
            let since = log?["source_last_seq"] ?? 0
            let entry: JSONValue = [
                "session_id": .string(sessionID), "start_time": .string(ReplicationLog.timestamp(started)), "end_time": .string(ReplicationLog.timestamp(ended)),
                "start_last_seq": since, "end_last_seq": since, "recorded_seq": since,
                "missing_checked": .number(JSONNumber(stats.missingChecked)), "missing_found": .number(JSONNumber(stats.missingFound)),
                "docs_read": .number(JSONNumber(stats.docsRead)), "docs_written": .number(JSONNumber(stats.docsWritten)),
                "doc_write_failures": .number(JSONNumber(stats.docWriteFailures)),
            ]
            answer["session_id"] = .string(sessionID)
            answer["source_last_seq"] = since
            answer["replication_id_version"] = 4
            answer["history"] = .array([entry] + (log?["history"]?.arrayValue ?? []).prefix(ReplicationLog.maximumHistory - 1))
        }
        if byDocumentIDs {
            // The newest history entry's counts, which go on from the history the replication resumed, as
            // CouchDB's statistics do.
            let newest = answer["history"]?.arrayValue?.first
            answer["start_time"] = newest?["start_time"] ?? .string(ReplicationLog.timestamp(started))
            answer["end_time"] = newest?["end_time"] ?? .string(ReplicationLog.timestamp(ended))
            for (key, count) in [("docs_read", stats.docsRead), ("docs_written", stats.docsWritten), ("doc_write_failures", stats.docWriteFailures)] {
                answer[key] = newest?[key] ?? .number(JSONNumber(count))
            }
        }
        return answer
    }
}
