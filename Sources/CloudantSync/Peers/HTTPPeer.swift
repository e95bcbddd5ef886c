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
    /// Where large attachments wait to be uploaded (see ``receivesLargeAttachmentsSeparately``): each is
    /// spooled to a file of its own here, and its document's `multipart/related` body is written beside it;
    /// both go once the document's write is over. The system's temporary directory by default; a folder on
    /// a larger volume suits replications of large attachments.
    public var spoolDirectory: URL = FileManager.default.temporaryDirectory
    let bulkGetSupport = BulkGetSupport()
    private let changesLimit = ChangesLimit()

    /// Creates a peer.
    ///
    /// - Parameters:
    ///   - url: The database's URL; credentials in it are used and never shown.
    ///   - authentication: How requests authenticate (basic, session cookie, none).
    ///   - headers: Extra headers on every request (an API key, a client id).
    ///   - timeout: Per request; a continuous replication's longpoll waits are added to it.
    ///   - transport: What carries the requests: ``URLSessionTransport`` by default; `AsyncHTTPClientTransport`
    ///     from `CloudantSyncNIO` is faster on Linux and takes a TLS configuration of your own.
    ///   - limits: The bounds every answer is read within (size, pace, deadline, and what one document may
    ///     hold), so a broken or hostile server cannot exhaust memory, hang the replication or get bad data in.
    /// - Throws: `CloudantError` with code `invalidInput` (field `url`) for a URL that names no database.
    public init(
        url: URL, authentication: RemoteAuthentication = .none, headers: [String: String] = [:],
        timeout: Duration = .seconds(60), limits: PeerLimits = PeerLimits(), transport: any HTTPTransport = URLSessionTransport()
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
            database: clean, authentication: authentication, headers: headers, timeout: seconds, limits: limits, transport: transport)
    }

    /// The bounds every answer is read within.
    public var limits: PeerLimits { client.limits }

    public func identity() async throws -> String {
        // Scheme, host, port and path; never credentials.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        return components?.string ?? url.absoluteString
    }

    public func info() async throws -> PeerInfo {
        let response = try await client.send("GET", "")
        guard case .object(let body)? = response.body else {
            throw Self.unexpected(response, "GET /db answered without a database's information")
        }
        return PeerInfo(
            updateSeq: body["update_seq"] ?? 0,
            instanceStartTime: body["instance_start_time"]?.stringValue ?? "0")
    }

    /// Creates the database when it does not exist (`create_target`).
    public func createIfMissing() async throws {
        _ = try await client.send("PUT", "", accept: [412])
    }

    public func localDocument(id: String) async throws -> JSONObject? {
        let response = try await client.send("GET", Self.path(id), accept: [404])
        guard response.status != 404 else { return nil }
        guard case .object(let document)? = response.body else { throw Self.unexpected(response, "a checkpoint that is not an object") }
        return document
    }

    public func filterFunctionSource(_ name: String) async throws -> String? {
        guard let (ddoc, function) = Self.filterParts(name) else { return nil }
        let response = try await client.send("GET", "_design/" + CouchHTTPClient.encode(ddoc), accept: [404])
        guard response.status != 404 else { return nil }
        return response.body?["filters"]?[function]?.stringValue
    }

    public func putLocalDocument(id: String, body: JSONObject) async throws {
        for _ in 0..<3 {
            var document = body
            document["_rev"] = try await localDocument(id: id)?["_rev"]
            let response = try await client.send("PUT", Self.path(id), body: .object(document), accept: [409])
            if response.status != 409 { return }
            // Someone (our own earlier, unanswered attempt) wrote it meanwhile: read again.
        }
        throw CloudantError.peerRefused(
            url: url.appendingPathComponent(id), status: 409, error: "conflict", reason: "The checkpoint \(id) kept changing.")
    }

    /// Reads a page of changes. A page too large for ``PeerLimits/maximumBodySize`` is read again with half the
    /// limit, down to one change, and later pages start from the limit that worked; the page then says so
    /// (``ChangesPage/limit``), so a smaller page is not taken for the last.
    public func changes(_ request: ChangesRequest) async throws -> ChangesPage {
        var limit = min(request.limit, await changesLimit.value ?? request.limit)
        while true {
            do {
                var page = try await changes(request, limit: limit)
                if limit < request.limit { page.limit = limit }
                return page
            } catch let failure as CloudantError where limit > 1 && failure.peerViolation?.isBodyTooLarge == true {
                limit = max(1, limit / 2)
                await changesLimit.lower(to: limit)
            }
        }
    }

    private func changes(_ request: ChangesRequest, limit: Int) async throws -> ChangesPage {
        var request = request
        request.limit = limit
        var query: [(String, String)] = [
            ("style", "all_docs"), ("since", Self.sequenceParameter(request.since)), ("limit", String(limit)),
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
        case .designFunction(let name, let parameters):
            let extra = [("filter", name)] + parameters.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            response = try await client.send("GET", "_changes", query: query + extra, timeout: waitSeconds)
        case .closure(let name, _):
            throw CloudantError(
                .invalidInput, "The closure filter \(name) runs where the documents are; use it with a local source.",
                context: .init(field: "filter", url: url))
        }
        return try Self.page(response, for: request, limits: client.limits)
    }

    /// The page a `_changes` answer holds, checked: an answer without `results` is not one; rows past the limit
    /// asked for are left for the next page (which starts after the last row kept); a row whose revisions are
    /// beyond the limits is kept with its ``PeerChange/problem``, to be reported rather than replicated.
    static func page(_ response: CouchHTTPClient.Response, for request: ChangesRequest, limits: PeerLimits) throws -> ChangesPage {
        guard case .object(let answer)? = response.body, let rows = answer["results"]?.arrayValue else {
            throw unexpected(response, "a _changes answer without a results array")
        }
        let kept = rows.prefix(max(1, request.limit))
        var changes: [PeerChange] = []
        changes.reserveCapacity(kept.count)
        for row in kept {
            guard let id = row["id"]?.stringValue, let seq = row["seq"], let listed = row["changes"]?.arrayValue else {
                throw unexpected(response, "a _changes row without id, seq or changes")
            }
            let revs = listed.compactMap { $0["rev"]?.stringValue }
            let problem = revs.isEmpty ? "The source lists no revision for this change." : AnswerCheck.problem(inChange: revs, limits: limits)
            changes.append(
                PeerChange(
                    seq: seq, id: id, revs: problem == nil ? revs : Array(revs.prefix(1)), deleted: row["deleted"]?.boolValue ?? false,
                    problem: problem))
        }
        let truncated = rows.count > kept.count
        let lastSeq = truncated ? changes.last?.seq : answer["last_seq"] ?? changes.last?.seq
        let pending = truncated ? nil : answer["pending"]?.numberValue?.int64Value.map { Int($0) }
        return ChangesPage(changes: changes, lastSeq: lastSeq ?? request.since, pending: pending)
    }

    public func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        let body = JSONValue.object(JSONObject(revisions.map { ($0.key, .array($0.value.map { .string($0) })) }))
        let response = try await client.send("POST", "_revs_diff", body: body)
        guard case .object(let answer)? = response.body else { throw Self.unexpected(response, "a _revs_diff answer that is not an object") }
        var result: [String: MissingRevisions] = [:]
        for (id, entry) in answer.members {
            guard let missing = entry["missing"]?.arrayValue else { throw Self.unexpected(response, "a _revs_diff entry without missing") }
            result[id] = MissingRevisions(
                missing: missing.compactMap(\.stringValue),
                possibleAncestors: (entry["possible_ancestors"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
        return result
    }

    /// Asks the server to commit (`_ensure_full_commit`, with the JSON content type CouchDB requires).
    /// CouchDB 3 commits every write anyway, and servers differ on this endpoint (a 404, a 405, a 415 from a
    /// strict one), so any answer the server gives is fine: only a failure to reach it is thrown, and the
    /// replication decides on its retry policy as for any request.
    public func ensureFullCommit() async throws {
        do {
            _ = try await client.send("POST", "_ensure_full_commit", contentType: "application/json")
        } catch let failure as CloudantError where failure.context.status != nil {
            // The server answered; a refusal of an optional request does not stop a replication.
        }
    }

    /// The violation of an answer that is not what the request asks for.
    static func unexpected(_ response: CouchHTTPClient.Response, _ what: String) -> CloudantError {
        .peerViolation(url: response.url, violation: .unexpectedShape(what))
    }

    /// The error for a URL that cannot be a peer; the URL it names has no credentials.
    private static func invalidURL(_ url: URL, _ problem: String) -> CloudantError {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.user = nil
        components?.password = nil
        let shown = components?.url
        return CloudantError(.invalidInput, "\(shown?.absoluteString ?? "The URL") \(problem)", context: .init(field: "url", url: shown))
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

/// The page size a peer's `_changes` answers fit its limits with, once a larger one did not.
actor ChangesLimit {
    private(set) var value: Int?
    func lower(to limit: Int) { value = min(value ?? limit, limit) }
}

/// Whether the server answers `_bulk_get`, learned on first use.
actor BulkGetSupport {
    private(set) var isAvailable = true
    func markUnavailable() { isAvailable = false }
}
