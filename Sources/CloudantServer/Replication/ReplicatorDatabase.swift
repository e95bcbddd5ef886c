internal import CloudantCore
internal import CloudantStore
internal import CloudantSync
internal import Foundation

/// The `_replicator` database: each document is a replication job, started when it is written, stopped when it is
/// deleted, started again when the server starts, as `couch_replicator_doc_processor` does.
///
/// CouchDB 3 writes only two states into a document: `completed` (with `_replication_stats`) when a one-shot job
/// finished, and `failed` (with `_replication_state_reason`) when the document cannot be a job; everything else
/// (`initializing`, `running`, `pending`, `crashing`, `error`) is reported by `/_scheduler/docs`. A document in
/// state `completed` or `failed` is not started again.
///
/// The endpoint calls ``catchUp()`` after every request that writes to `_replicator`, and once at start.
actor ReplicatorDatabase {
    static let name = "_replicator"

    /// A document that could not become a job yet (its local database is missing): retried with backoff
    /// (`couch_replicator_doc_processor`'s `error` state).
    struct DocumentError: Sendable {
        var reason: String
        var count: Int
        var time: Date
        var start: Date
    }

    private let registry: DatabaseRegistry
    private let scheduler: ReplicationScheduler
    private var since: Int64 = 0
    private var followedStore: ObjectIdentifier?
    /// The job body each scheduled document started, so a rewrite that changes nothing keeps its job.
    private var started: [String: JSONObject] = [:]
    private var errors: [String: DocumentError] = [:]
    private var retries: [String: Task<Void, Never>] = [:]

    init(registry: DatabaseRegistry, scheduler: ReplicationScheduler) {
        self.registry = registry
        self.scheduler = scheduler
    }

    /// Carries out every `_replicator` change not yet seen. A deleted `_replicator` stops its documents' jobs and
    /// stays deleted until a client creates it, as in CouchDB.
    func catchUp() async {
        guard let store = try? await registry.store(Self.name) else {
            followedStore = nil
            for documentID in Array(started.keys) { stopJob(of: documentID) }
            return
        }
        if followedStore != ObjectIdentifier(store) {
            followedStore = ObjectIdentifier(store)
            since = 0
            for documentID in Array(started.keys) { stopJob(of: documentID) }
        }
        while true {
            guard let page = try? await store.changes(ChangesOptions(since: since, limit: 500, includeDocs: true))
            else { return }
            for change in page.results where !change.id.hasPrefix("_design/") {
                await apply(change, store: store)
            }
            since = page.lastSeq
            if !page.hasMore || page.results.isEmpty { return }
        }
    }

    /// A document's scheduling error, if it has one.
    func error(of documentID: String) -> DocumentError? { errors[documentID] }

    private func apply(_ change: Change, store: DocumentStore) async {
        let documentID = change.id
        guard !change.deleted, let document = change.doc else {
            stopJob(of: documentID)
            return
        }
        switch document["_replication_state"]?.stringValue {
        case "completed"?, "failed"?:
            stopJob(of: documentID)
            return
        default:
            break
        }
        let body = Self.jobBody(document)
        if started[documentID] == body, errors[documentID] == nil { return }
        stopJob(of: documentID)
        let spec: ReplicationSpec
        do {
            spec = try ReplicationSpec(body)
        } catch {
            let reason = (error as? HTTPFailure)?.body.reason ?? String(describing: error)
            await writeState(["_replication_state": "failed", "_replication_state_reason": .string(reason)], documentID: documentID, store: store)
            return
        }
        started[documentID] = body
        await schedule(documentID, spec: spec, owner: document["owner"]?.stringValue, previous: nil)
    }

    /// Adds the job of a document, or records why it cannot be one yet and tries again later.
    private func schedule(_ documentID: String, spec: ReplicationSpec, owner: String?, previous: DocumentError?) async {
        do {
            let id = try await scheduler.replicationID(of: spec)
            errors[documentID] = nil
            _ = scheduler.add(spec, id: id, database: Self.name, documentID: documentID, user: owner)
        } catch {
            let now = Date()
            let failure = DocumentError(
                reason: CrashReason(error, spec: spec).reason, count: (previous?.count ?? 0) + 1, time: now,
                start: previous?.start ?? now)
            errors[documentID] = failure
            let wait = scheduler.settings.backoff(afterCrashes: failure.count)
            retries[documentID] = Task { [weak self] in
                guard (try? await Task.sleep(for: wait)) != nil, let self else { return }
                await self.retry(documentID, spec: spec, owner: owner, previous: failure)
            }
        }
    }

    private func retry(_ documentID: String, spec: ReplicationSpec, owner: String?, previous: DocumentError) async {
        guard errors[documentID] != nil else { return }
        await schedule(documentID, spec: spec, owner: owner, previous: previous)
    }

    private func stopJob(of documentID: String) {
        started[documentID] = nil
        errors[documentID] = nil
        retries.removeValue(forKey: documentID)?.cancel()
        if let job = scheduler.job(forDocument: documentID) {
            scheduler.remove(job.record.withLock(\.id))
        }
    }

    /// Writes `_replication_state: completed` and the job's statistics into its document
    /// (`couch_replicator_docs:update_doc_completed/3`).
    func markCompleted(_ documentID: String, record: ReplicationJobRecord) async {
        guard let store = try? await registry.store(Self.name) else { return }
        var stats = record.statsJSON.objectValue ?? [:]
        stats["start_time"] = .string(CouchTime.iso8601(record.startTime))
        await writeState(["_replication_state": "completed", "_replication_stats": .object(stats)], documentID: documentID, store: store)
        await catchUp()
    }

    /// Sets the `_replication_*` members of a document, with `_replication_state_time` when the state changes
    /// (`couch_replicator_docs:update_rep_doc/4`); a document deleted meanwhile is left alone.
    private func writeState(_ members: JSONObject, documentID: String, store: DocumentStore) async {
        await store.rewrite(id: documentID) { stored in
            guard var document = stored else { return nil }
            let state = members["_replication_state"]
            if let state, document["_replication_state"] != state {
                document["_replication_state_time"] = .string(CouchTime.iso8601(Date()))
            }
            for (key, value) in members.members { document[key] = value }
            if state == "failed" { document["_replication_stats"] = nil }
            if state == "completed" { document["_replication_state_reason"] = nil }
            return document
        }
    }

    /// The members of a document that define its job: all but `_rev` and the `_replication_*` state.
    static func jobBody(_ document: JSONObject) -> JSONObject {
        JSONObject(
            document.members.filter { member in member.key != "_rev" && !member.key.hasPrefix("_replication_") }
                .map { ($0.key, $0.value) })
    }

    /// Checks a document written to `_replicator` and sets its `owner`, as `couch_replicator_docs:before_doc_update/3`:
    /// a user's document is theirs (`owner` is set to their name); only an admin writes another's; a document
    /// that cannot be a replication is refused, unless it is deleted or already `failed`.
    /// - Throws: ``HTTPFailure`` `403 forbidden` with the reason.
    static func prepare(_ document: JSONObject, user: UserContext) throws -> JSONObject {
        let id = document["_id"]?.stringValue ?? ""
        if id.hasPrefix("_design/") || id.hasPrefix("_local/") { return document }
        var prepared = document
        let name: JSONValue = user.name.map(JSONValue.string) ?? .null
        switch document["owner"] {
        case nil:
            prepared["owner"] = name
        case let owner? where owner == name:
            break
        case let owner?:
            guard user.isServerAdmin else { throw HTTPFailure.forbidden("Can't update replication documents from other users.") }
            if owner == .null { prepared["owner"] = name }
        }
        if document["_deleted"] == true || document["_replication_state"] == "failed" { return prepared }
        do {
            _ = try ReplicationSpec(prepared)
        } catch let failure as HTTPFailure {
            throw HTTPFailure.forbidden(failure.body.reason)
        }
        return prepared
    }
}
