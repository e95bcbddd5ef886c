public import CloudantCore
public import Foundation

/// A CouchDB-compatible database over HTTP as a replication peer: Apache CouchDB 3, IBM Cloudant, a
/// PouchDB server, or another store served by `cloudant serve`.
///
/// ```swift
/// let remote = try HTTPPeer(url: URL(string: "https://account.cloudant.com/patients")!, authentication: .session(user: "u", password: p))
/// try await Replicator(source: LocalPeer(store), target: remote).run()
/// ```
///
/// Credentials written in the URL (`https://user:pass@host/db`) become basic authentication and never
/// enter the replication id. Requests follow CouchDB's replication protocol: `_changes` with `style=all_docs` (POST with
/// `filter=_doc_ids` / `_selector`), `_revs_diff`, `_bulk_get` (falling back to `open_revs` on servers
/// without it), `_bulk_docs` with `new_edits: false` (halving a batch the server finds too large),
/// `_local` checkpoints.
public struct HTTPPeer: ReplicationPeer {
    /// The database URL, without credentials.
    public let url: URL
    let client: CouchHTTPClient
    private let bulkGetSupport = BulkGetSupport()

    /// Creates a peer.
    ///
    /// - Parameters:
    ///   - url: The database URL; credentials in it become basic authentication and are removed from ``url``.
    ///   - authentication: How requests prove who they are.
    ///   - headers: Extra headers on every request (an API key, a client id).
    ///   - timeout: Per request; a continuous replication's longpoll waits are added to it.
    ///   - transport: What carries the requests: ``URLSessionTransport`` by default; `AsyncHTTPClientTransport`
    ///     from `CloudantSyncNIO` is faster on Linux and takes a TLS configuration of your own.
    /// - Throws: ``ReplicationError/localFailure(url:underlying:)`` (code
    ///   `CloudantError.Code.invalidValue`, field `url`) for a URL that names no database.
    public init(
        url: URL, authentication: RemoteAuthentication = .none, headers: [String: String] = [:],
        timeout: Duration = .seconds(60), transport: any HTTPTransport = URLSessionTransport()
    ) throws {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false), components.host != nil,
            components.path.count > 1
        else {
            throw Self.invalidURL(url, "is not a database URL like http://host:5984/db.")
        }
        var authentication = authentication
        if let user = components.user, case .none = authentication {
            authentication = .basic(user: user.removingPercentEncoding ?? user, password: components.password?.removingPercentEncoding ?? "")
        }
        components.user = nil
        components.password = nil
        guard let clean = components.url else {
            throw Self.invalidURL(url, "is not a valid URL.")
        }
        self.url = clean
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        client = CouchHTTPClient(
            database: clean, authentication: authentication, headers: headers, timeout: seconds, transport: transport)
    }

    public func identity() async throws -> String {
        // Scheme, host, port and path; never credentials.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        return components?.string ?? url.absoluteString
    }

    public func info() async throws -> PeerInfo {
        let body = try await client.send("GET", "").body
        return PeerInfo(
            updateSeq: body?["update_seq"] ?? 0,
            instanceStartTime: body?["instance_start_time"]?.stringValue ?? "0")
    }

    /// Creates the database when it does not exist (`create_target`).
    public func createIfMissing() async throws {
        _ = try await client.send("PUT", "", accept: [412])
    }

    public func localDocument(id: String) async throws -> JSONObject? {
        let response = try await client.send("GET", Self.path(id), accept: [404])
        return response.status == 404 ? nil : response.body?.objectValue
    }

    public func putLocalDocument(id: String, body: JSONObject) async throws {
        for _ in 0..<3 {
            var document = body
            document["_rev"] = try await localDocument(id: id)?["_rev"]
            let response = try await client.send("PUT", Self.path(id), body: .object(document), accept: [409])
            if response.status != 409 { return }
            // Someone (our own earlier, unanswered attempt) wrote it meanwhile: read again.
        }
        throw ReplicationError.peerRefused(
            url: url.appendingPathComponent(id), status: 409, error: "conflict", reason: "The checkpoint \(id) kept changing.")
    }

    public func changes(_ request: ChangesRequest) async throws -> ChangesPage {
        var query: [(String, String)] = [
            ("style", "all_docs"), ("since", Self.sequenceParameter(request.since)), ("limit", String(request.limit)),
        ]
        var waitSeconds: TimeInterval?
        if let longpoll = request.longpoll {
            let milliseconds = longpoll.components.seconds * 1000 + longpoll.components.attoseconds / 1_000_000_000_000_000
            query += [("feed", "longpoll"), ("timeout", String(milliseconds)), ("heartbeat", "10000")]
            waitSeconds = Double(milliseconds) / 1000 + 30
        }
        let response: CouchHTTPClient.Response
        switch request.filter {
        case .none:
            response = try await client.send("GET", "_changes", query: query, timeout: waitSeconds)
        case .documentIDs(let ids):
            response = try await client.send(
                "POST", "_changes", query: query + [("filter", "_doc_ids")],
                body: ["doc_ids": .array(ids.map { .string($0) })], timeout: waitSeconds)
        case .selector(let selector):
            response = try await client.send(
                "POST", "_changes", query: query + [("filter", "_selector")], body: ["selector": selector.json],
                timeout: waitSeconds)
        case .closure(let name, _):
            throw ReplicationError.localFailure(
                url: url,
                underlying: CloudantError(
                    .invalidValue, "The closure filter \(name) runs where the documents are; use it with a local source.",
                    context: .init(field: "filter")))
        }
        let rows = response.body?["results"]?.arrayValue ?? []
        let changes = rows.compactMap { row -> PeerChange? in
            guard let id = row["id"]?.stringValue, let seq = row["seq"] else { return nil }
            let revs = (row["changes"]?.arrayValue ?? []).compactMap { $0["rev"]?.stringValue }
            return PeerChange(seq: seq, id: id, revs: revs, deleted: row["deleted"]?.boolValue ?? false)
        }
        let pending = response.body?["pending"]?.numberValue?.int64Value.map { Int($0) }
        return ChangesPage(changes: changes, lastSeq: response.body?["last_seq"] ?? request.since, pending: pending)
    }

    public func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        let body = JSONValue.object(JSONObject(revisions.map { ($0.key, .array($0.value.map { .string($0) })) }))
        let answer = try await client.send("POST", "_revs_diff", body: body).body?.objectValue ?? JSONObject()
        var result: [String: MissingRevisions] = [:]
        for (id, entry) in answer.members {
            result[id] = MissingRevisions(
                missing: (entry["missing"]?.arrayValue ?? []).compactMap(\.stringValue),
                possibleAncestors: (entry["possible_ancestors"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        return result
    }

    public func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] {
        try await fetch(requests, attachments: true)
    }

    /// The revisions with attachment data (as the replicator needs it), or with stubs only.
    func fetch(_ requests: [RevisionRequest], attachments: Bool) async throws -> [FetchedRevision] {
        if await bulkGetSupport.isAvailable {
            do {
                return try await bulkGet(requests, attachments: attachments)
            } catch let failure as ReplicationError where [400, 404, 405, 501].contains(failure.status ?? 0) {
                await bulkGetSupport.markUnavailable()  // An older server: fall back to open_revs, as CouchDB's replicator does.
            }
        }
        var fetched: [FetchedRevision] = []
        for request in requests { fetched += try await openRevisions(request, attachments: attachments) }
        return fetched
    }

    private func bulkGet(_ requests: [RevisionRequest], attachments: Bool) async throws -> [FetchedRevision] {
        let body: JSONValue = [
            "docs": .array(
                requests.map { request in
                    var entry: JSONObject = ["id": .string(request.id), "rev": .string(request.rev)]
                    if attachments, !request.attachmentsSince.isEmpty {
                        entry["atts_since"] = .array(request.attachmentsSince.map { .string($0) })
                    }
                    return .object(entry)
                })
        ]
        // `att_encoding_info` makes the server say which attachments it keeps encoded, so a digest of bytes
        // we are not sent (the gzip form, at the server's compression settings) is known as such.
        let response = try await client.send(
            "POST", "_bulk_get",
            query: [("revs", "true"), ("latest", "true"), ("attachments", String(attachments)), ("att_encoding_info", "true")],
            body: body)
        var fetched: [FetchedRevision] = []
        for result in response.body?["results"]?.arrayValue ?? [] {
            let id = result["id"]?.stringValue ?? ""
            for entry in result["docs"]?.arrayValue ?? [] {
                if let document = entry["ok"]?.objectValue {
                    fetched.append(.document(document))
                } else {
                    fetched.append(.missing(id: id, rev: entry["error"]?["rev"]?.stringValue ?? ""))
                }
            }
        }
        return fetched
    }

    private func openRevisions(_ request: RevisionRequest, attachments: Bool) async throws -> [FetchedRevision] {
        var query: [(String, String)] = [
            ("open_revs", JSONValue.array([.string(request.rev)]).jsonString()), ("revs", "true"), ("latest", "true"),
            ("attachments", String(attachments)), ("att_encoding_info", "true"),
        ]
        if attachments, !request.attachmentsSince.isEmpty {
            query.append(("atts_since", JSONValue.array(request.attachmentsSince.map { .string($0) }).jsonString()))
        }
        let response = try await client.send("GET", CouchHTTPClient.encode(request.id), query: query, accept: [404])
        guard response.status != 404 else { return [.missing(id: request.id, rev: request.rev)] }
        return (response.body?.arrayValue ?? []).map { entry in
            if let document = entry["ok"]?.objectValue { return .document(document) }
            return .missing(id: request.id, rev: entry["missing"]?.stringValue ?? request.rev)
        }
    }

    public func write(_ documents: [JSONObject]) async throws -> [WriteFailure] {
        let (plain, multipart) = MultipartUpload.split(documents)
        var failures: [WriteFailure] = []
        for document in multipart {
            if let failure = try await MultipartUpload.put(document, with: client) { failures.append(failure) }
        }
        return try await bulkDocs(plain) + failures
    }

    /// `_bulk_docs` with `new_edits: false`, halving a batch the server finds too large.
    private func bulkDocs(_ documents: [JSONObject]) async throws -> [WriteFailure] {
        guard !documents.isEmpty else { return [] }
        do {
            let response = try await client.send(
                "POST", "_bulk_docs", body: ["docs": .array(documents.map(JSONValue.object)), "new_edits": false])
            return (response.body?.arrayValue ?? []).compactMap { entry in
                guard let error = entry["error"]?.stringValue else { return nil }
                return WriteFailure(id: entry["id"]?.stringValue, error: error, reason: entry["reason"]?.stringValue ?? "")
            }
        } catch ReplicationError.peerRefused(_, 413, _, let reason) {
            // Too large: halve the batch; a single document too large is a write failure.
            guard documents.count > 1 else {
                return [WriteFailure(id: documents[0]["_id"]?.stringValue, error: "too_large", reason: reason)]
            }
            let middle = documents.count / 2
            return try await bulkDocs(Array(documents[..<middle])) + bulkDocs(Array(documents[middle...]))
        }
    }

    /// Asks the server to commit (`_ensure_full_commit`, with the JSON content type CouchDB requires).
    /// CouchDB 3 commits every write anyway, and servers differ on this endpoint (a 404, a 405, a 415 from a
    /// strict one), so any answer the server gives is fine: only a failure to reach it is thrown, and the
    /// replication decides on its retry policy as for any request.
    public func ensureFullCommit() async throws {
        do {
            _ = try await client.send("POST", "_ensure_full_commit", contentType: "application/json")
        } catch let failure as ReplicationError where failure.status != nil {
            // The server answered; a refusal of an optional request does not stop a replication.
        }
    }

    /// The error for a URL that cannot be a peer; the URL it names has no credentials.
    private static func invalidURL(_ url: URL, _ problem: String) -> ReplicationError {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        let shown = components?.url
        return .localFailure(
            url: shown,
            underlying: CloudantError(
                .invalidValue, "\(shown?.absoluteString ?? "The URL") \(problem)", context: .init(field: "url")))
    }

    /// `_local/<id>` with the part after `_local/` percent-encoded.
    static func path(_ localID: String) -> String {
        let name = localID.hasPrefix("_local/") ? String(localID.dropFirst("_local/".count)) : localID
        return "_local/" + CouchHTTPClient.encode(name)
    }

    /// A sequence as a query parameter: strings as they are, numbers as written.
    static func sequenceParameter(_ seq: JSONValue) -> String {
        if case .string(let text) = seq { return text }
        return seq.jsonString()
    }
}

/// Whether the server answers `_bulk_get`, learned on first use.
actor BulkGetSupport {
    private(set) var isAvailable = true
    func markUnavailable() { isAvailable = false }
}
