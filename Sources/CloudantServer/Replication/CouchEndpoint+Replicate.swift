internal import CloudantCore
internal import CloudantStore
internal import CloudantSync
internal import Foundation
internal import Hummingbird

extension CouchEndpoint {
    /// `POST /_replicate` (`couch_replicator_httpd:handle_req/1`): a one-shot replication answers its checkpoint
    /// history when it is done, a continuous one `202 {"ok":true,"_local_id":…}` at once, and `cancel: true` stops
    /// the job named by `replication_id` (or by the same body that started it).
    ///
    /// Server admins start jobs; the user who started a job, or an admin, cancels it.
    func replicate(_ request: CouchRequest) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        if let cancel = body["cancel"], cancel != .null {
            guard let flag = cancel.boolValue else { throw HTTPFailure.badRequest("parameter `cancel` must be a boolean") }
            if flag { return try await cancelReplication(request, body: body) }
        }
        try requireServerAdmin(request.user)
        let spec = try ReplicationSpec(body)
        let id: (base: String, full: String)
        do {
            id = try await replicationScheduler.replicationID(of: spec)
        } catch let crash as CrashReason {
            return Self.crashResponse(crash)
        }
        let job = replicationScheduler.add(spec, id: id, database: nil, documentID: nil, user: request.user.name)
        if spec.continuous { return CouchResponse.json(["ok": true, "_local_id": .string(id.full)], status: 202) }
        switch await job.outcome() {
        case .completed(let stats, let log, let sessionID):
            let started = job.record.withLock(\.startTime)
            return CouchResponse.json(
                .object(
                    ReplicateAnswer.json(
                        stats: stats, log: log, sessionID: sessionID, byDocumentIDs: spec.documentIDs != nil, started: started,
                        ended: Date())))
        case .failed(let crash):
            return Self.crashResponse(crash)
        case .cancelled:
            return CouchResponse.json(["error": "cancelled", "reason": "The replication was cancelled."], status: 500)
        }
    }

    /// CouchDB answers a job that could not run with 500 and its error and reason.
    private static func crashResponse(_ crash: CrashReason) -> Response {
        CouchResponse.json(["error": .string(crash.error), "reason": .string(crash.reason)], status: 500)
    }

    private func cancelReplication(_ request: CouchRequest, body: JSONObject) async throws -> Response {
        let id: String
        if let given = (body["replication_id"] ?? body["id"])?.stringValue {
            // `couch_replicator_ids:convert/1`: a `+` decoded as a space is a `+`.
            id = given.replacingOccurrences(of: " ", with: "+")
        } else {
            let spec = try ReplicationSpec(body)
            do {
                id = try await replicationScheduler.replicationID(of: spec).full
            } catch is CrashReason {
                throw HTTPFailure.notFound()
            }
        }
        // `chttpd_misc:handle_replicate_req/1` sends `{error, not_found}` with `send_error/2`: `404 missing`.
        guard let job = replicationScheduler.job(id) else { throw HTTPFailure.notFound() }
        // `check_authorization/2`: the user who started it, or a server admin.
        let owner = job.record.withLock(\.user)
        if owner == nil || owner != request.user.name {
            guard request.user.isServerAdmin else { throw HTTPFailure.unauthorized("You are not a server admin.") }
        }
        replicationScheduler.remove(id)
        return CouchResponse.json(["ok": true, "_local_id": .string(id)])
    }

    /// `GET /_scheduler/jobs[/{id}]` and `GET /_scheduler/docs[/_replicator[/{docid}]]` (server admins).
    func scheduler(_ request: CouchRequest) async throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        try requireServerAdmin(request.user)
        let path = Array(request.segments.dropFirst())
        switch path.first {
        case "jobs"?:
            if path.count == 1 { return try schedulerJobs(request) }
            guard path.count == 2, let job = replicationScheduler.job(path[1]) else { throw HTTPFailure.notFound() }
            return CouchResponse.json(job.record.withLock { $0.jobJSON(node: nodeName) })
        case "docs"?:
            let rest = Array(path.dropFirst())
            if rest.isEmpty || rest == [ReplicatorDatabase.name] { return try await schedulerDocs(request) }
            guard rest.count == 2, rest[0] == ReplicatorDatabase.name else {
                if rest.count > 2 || !rest.contains(ReplicatorDatabase.name) { throw HTTPFailure.badRequest("Invalid path") }
                throw HTTPFailure.notFound()
            }
            guard let document = try await schedulerDocument(rest[1]) else { throw HTTPFailure.notFound() }
            return CouchResponse.json(document)
        default:
            return CouchResponse.json(["error": "not found"], status: 404)
        }
    }

    private func schedulerJobs(_ request: CouchRequest) throws -> Response {
        let (limit, skip) = try Self.pageParameters(request)
        let jobs = replicationScheduler.allJobs()
        let offset = min(skip, jobs.count)
        let page = jobs.dropFirst(offset).prefix(limit).map { job in job.record.withLock { $0.jobJSON(node: nodeName) } }
        return CouchResponse.json([
            "total_rows": .number(JSONNumber(jobs.count)), "offset": .number(JSONNumber(offset)), "jobs": .array(Array(page)),
        ])
    }

    private func schedulerDocs(_ request: CouchRequest) async throws -> Response {
        let (limit, skip) = try Self.pageParameters(request)
        let states = try Self.stateFilter(request.query["states"])
        var options = AllDocsOptions()
        options.includeDocs = true
        // A deleted `_replicator` has no documents to report.
        let rows = try? await registry.store(ReplicatorDatabase.name).allDocs(options).rows
        var documents: [JSONValue] = []
        for row in rows ?? [] {
            guard let id = row["id"]?.stringValue, !id.hasPrefix("_design/") else { continue }
            guard let document = try await schedulerDocument(id, stored: row["doc"]?.objectValue) else { continue }
            if !states.isEmpty, !states.contains(document["state"]?.stringValue ?? "") { continue }
            documents.append(document)
        }
        let offset = min(skip, documents.count)
        return CouchResponse.json([
            "total_rows": .number(JSONNumber(documents.count)), "offset": .number(JSONNumber(offset)),
            "docs": .array(Array(documents.dropFirst(offset).prefix(limit))),
        ])
    }

    /// A `_replicator` document as `/_scheduler/docs` reports it: from its job while it is scheduled, from its
    /// scheduling error, or from the state written in it (`couch_replicator:info_from_doc/2`).
    private func schedulerDocument(_ documentID: String, stored: JSONObject? = nil) async throws -> JSONValue? {
        if let job = replicationScheduler.job(forDocument: documentID) {
            return job.record.withLock { $0.documentJSON(healthThreshold: replicationScheduler.healthThreshold, node: nodeName) }
        }
        var document = stored
        if document == nil {
            document = try? await registry.store(ReplicatorDatabase.name).document(id: documentID)
        }
        guard let document, document["_deleted"] != true else { return nil }
        let source = (try? ReplicationEndpoint(document["source"], which: "source"))?.display
        let target = (try? ReplicationEndpoint(document["target"], which: "target"))?.display
        var info: JSONObject = [
            "doc_id": .string(documentID), "database": .string(ReplicatorDatabase.name), "id": .null,
            "source": source.map(JSONValue.string) ?? .null, "target": target.map(JSONValue.string) ?? .null,
        ]
        let stateTime = document["_replication_state_time"] ?? .null
        switch document["_replication_state"]?.stringValue {
        case "completed"?:
            var stats = document["_replication_stats"]?.objectValue ?? [:]
            let start = stats.removeValue(forKey: "start_time") ?? .null
            info["state"] = "completed"
            info["error_count"] = 0
            info["info"] = .object(stats)
            info["start_time"] = start
            info["last_updated"] = stateTime
        case "failed"?:
            info["state"] = "failed"
            info["error_count"] = 1
            info["info"] = ["error": document["_replication_state_reason"] ?? .null]
            info["start_time"] = stateTime
            info["last_updated"] = stateTime
        default:
            if let failure = await replicatorDatabase.error(of: documentID) {
                info["state"] = "error"
                info["error_count"] = .number(JSONNumber(failure.count))
                info["info"] = ["error": .string(failure.reason)]
                info["node"] = .string(nodeName)
                info["start_time"] = .string(CouchTime.iso8601(failure.start))
                info["last_updated"] = .string(CouchTime.iso8601(failure.time))
            } else {
                // Written but not yet picked up: CouchDB's `initializing`.
                info["state"] = "initializing"
                info["error_count"] = 0
                info["info"] = .null
                info["node"] = .string(nodeName)
                info["start_time"] = .null
                info["last_updated"] = .null
            }
        }
        return .object(info)
    }

    /// `limit` (default 100) and `skip` (default 0), non-negative integers (`parse_int_param/5`).
    private static func pageParameters(_ request: CouchRequest) throws -> (limit: Int, skip: Int) {
        func parameter(_ name: String, default fallback: Int) throws -> Int {
            guard let text = request.query[name] else { return fallback }
            guard let value = Int(text) else {
                throw HTTPFailure(status: 400, error: "query_parse_error", reason: "\(name) must be an integer")
            }
            guard value >= 0 else {
                throw HTTPFailure(status: 400, error: "query_parse_error", reason: "\(name) not in range of [0,infinity]")
            }
            return value
        }
        return (try parameter("limit", default: 100), try parameter("skip", default: 0))
    }

    static let replicationStates = ["initializing", "error", "running", "pending", "crashing", "completed", "failed"]

    /// `states=running,crashing` (`parse_replication_state_filter/1`); empty for every state.
    private static func stateFilter(_ text: String?) throws -> Set<String> {
        guard let text else { return [] }
        let states = text.split(separator: ",").map { $0.lowercased() }
        let unknown = states.filter { !replicationStates.contains($0) }
        guard unknown.isEmpty else {
            throw HTTPFailure(
                status: 400, error: "query_parse_error",
                reason: "Unknown states [\(unknown.joined(separator: ","))]. Choose from: [\(replicationStates.joined(separator: ","))]")
        }
        return Set(states)
    }

    /// The replications `/_active_tasks` lists: every running job.
    func replicationTasks() -> [JSONValue] {
        replicationScheduler.allJobs().compactMap { job -> JSONValue? in
            job.record.withLock { record -> JSONValue? in
                // Spelled out: `JSONValue` takes a `nil` literal too, as JSON null, which would list a job that is
                // not running as `null`.
                guard record.isRunning else { return Optional<JSONValue>.none }
                return record.activeTaskJSON(node: nodeName)
            }
        }
    }
}
