internal import CloudantCore
internal import Foundation

/// Reading revisions from a CouchDB-compatible source: `_bulk_get` (or `open_revs` on servers without it), every
/// answer checked against what was asked.
extension HTTPPeer {
    public func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] {
        try await fetch(requests, attachments: true)
    }

    /// The revisions with attachment data (as the replicator needs it), or with stubs only.
    ///
    /// An answer too large to read (``PeerLimits/maximumBodySize``) or not JSON (a document nested deeper than
    /// any store keeps) is asked for again in halves, so one such revision is named as that revision's failure
    /// (``FetchedRevision/invalid(id:rev:error:reason:)``) and the others arrive.
    func fetch(_ requests: [RevisionRequest], attachments: Bool) async throws -> [FetchedRevision] {
        guard !requests.isEmpty else { return [] }
        do {
            return try await fetchChecked(requests, attachments: attachments)
        } catch let failure as CloudantError {
            guard let violation = failure.peerViolation else { throw failure }
            switch violation {
            case .bodyTooLarge, .notJSON: break
            default: throw failure
            }
            guard requests.count > 1 else {
                return [.invalid(id: requests[0].id, rev: requests[0].rev, error: failure.couchDBName, reason: "\(failure)")]
            }
            let middle = requests.count / 2
            return try await fetch(Array(requests[..<middle]), attachments: attachments)
                + fetch(Array(requests[middle...]), attachments: attachments)
        }
    }

    private func fetchChecked(_ requests: [RevisionRequest], attachments: Bool) async throws -> [FetchedRevision] {
        if await bulkGetSupport.isAvailable {
            do {
                return try await bulkGet(requests, attachments: attachments)
            } catch let failure as CloudantError where [400, 404, 405, 501].contains(failure.context.status ?? 0) {
                await bulkGetSupport.markUnavailable()  // An older server: fall back to open_revs.
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
        guard let results = response.body?["results"]?.arrayValue else {
            throw Self.unexpected(response, "a _bulk_get answer without a results array")
        }
        var fetched: [FetchedRevision] = []
        for result in results {
            guard let entries = result["docs"]?.arrayValue else { throw Self.unexpected(response, "a _bulk_get result without docs") }
            let id = result["id"]?.stringValue
            for entry in entries {
                if case .object(let document)? = entry["ok"] {
                    fetched.append(checked(document, response))
                } else if case .object(let error)? = entry["error"] {
                    guard let missingID = error["id"]?.stringValue ?? id else {
                        throw Self.unexpected(response, "a _bulk_get error without the document's id")
                    }
                    fetched.append(.missing(id: missingID, rev: Self.rev(of: error, id: missingID, among: requests)))
                } else {
                    throw Self.unexpected(response, "a _bulk_get entry that is neither ok nor error")
                }
            }
        }
        try Self.verify(fetched, answer: requests, url: response.url)
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
        guard let entries = response.body?.arrayValue else { throw Self.unexpected(response, "an open_revs answer that is not an array") }
        guard entries.count <= client.limits.maximumLeaves else {
            return [
                .invalid(
                    id: request.id, rev: request.rev, error: "bad_request",
                    reason: "The source answered \(entries.count) leaves; at most \(client.limits.maximumLeaves) are read (PeerLimits.maximumLeaves).")
            ]
        }
        let fetched = try entries.map { entry -> FetchedRevision in
            if case .object(let document)? = entry["ok"] { return checked(document, response) }
            guard let missing = entry["missing"]?.stringValue else { throw Self.unexpected(response, "an open_revs entry that is neither ok nor missing") }
            return .missing(id: request.id, rev: missing)
        }
        try Self.verify(fetched, answer: [request], url: response.url)
        return fetched
    }

    /// A document a source sent, or why it cannot be written (``AnswerCheck``).
    private func checked(_ document: JSONObject, _ response: CouchHTTPClient.Response) -> FetchedRevision {
        guard let id = document["_id"]?.stringValue else {
            return .invalid(id: "", rev: document["_rev"]?.stringValue ?? "", error: "bad_request", reason: "The document has no _id.")
        }
        if let problem = AnswerCheck.problem(inDocument: document, limits: client.limits) {
            return .invalid(id: id, rev: document["_rev"]?.stringValue ?? "", error: problem.error, reason: problem.reason)
        }
        return .document(document)
    }

    /// The revision a `_bulk_get` error names; when it names none, the one revision asked of that document.
    private static func rev(of error: JSONObject, id: String, among requests: [RevisionRequest]) -> String {
        if let rev = error["rev"]?.stringValue { return rev }
        let asked = requests.filter { $0.id == id }
        return asked.count == 1 ? asked[0].rev : ""
    }

    /// Checks that an answer holds only what `requests` asked for, and something for each of them.
    /// - Throws: ``PeerViolation/unrequestedDocument(id:rev:)`` for a document nobody asked for (a revision of
    ///   another document, or one that neither is nor descends from a revision asked for);
    ///   ``PeerViolation/missingRevision(id:rev:)`` for a revision asked for that the answer leaves out.
    static func verify(_ fetched: [FetchedRevision], answer requests: [RevisionRequest], url: URL) throws {
        let asked = Dictionary(grouping: requests, by: \.id)
        var covered = Set<String>()
        for revision in fetched {
            switch revision {
            case .document(let document):
                let (id, rev) = (document["_id"]?.stringValue ?? "", document["_rev"]?.stringValue ?? "")
                let answered = (asked[id] ?? []).filter { ReplicationStateMachine.answers(document, rev: rev, request: $0) }
                guard !answered.isEmpty else { throw CloudantError.peerViolation(url: url, violation: .unrequestedDocument(id: id, rev: rev)) }
                for request in answered { covered.insert(request.id + " " + request.rev) }
            case .missing(let id, let rev), .invalid(let id, let rev, _, _):
                guard let requests = asked[id] else {
                    throw CloudantError.peerViolation(url: url, violation: .unrequestedDocument(id: id, rev: rev))
                }
                // An invalid document's history is not to be trusted: it answers every revision asked of its id.
                if case .invalid = revision {
                    for request in requests { covered.insert(request.id + " " + request.rev) }
                } else {
                    covered.insert(id + " " + rev)
                }
            }
        }
        for request in requests where !covered.contains(request.id + " " + request.rev) {
            throw CloudantError.peerViolation(url: url, violation: .missingRevision(id: request.id, rev: request.rev))
        }
    }
}
