internal import CloudantCore
internal import CloudantStore
internal import Hummingbird

extension CouchEndpoint {
    /// `POST /{db}/_bulk_docs`.
    func bulkDocs(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let body = try request.jsonObjectBody()
        guard let docsValue = body["docs"] else { throw HTTPFailure.badRequest("POST body must include `docs` parameter.") }
        guard var docs = docsValue.arrayValue else { throw HTTPFailure.badRequest("`docs` parameter must be an array.") }
        var newEdits = true
        if let value = body["new_edits"] {
            guard let flag = value.boolValue else { throw HTTPFailure.badRequest("`new_edits` parameter must be a boolean.") }
            newEdits = flag
        }
        for doc in docs { try checkDocumentSize(doc) }
        if newEdits, body["all_or_nothing"] == true {
            // CouchDB 3 refuses every document of an `all_or_nothing` batch (`fabric_doc_update:
            // validate_atomic_update/3`), after checking each is a valid document.
            let parsed = try docs.map { value -> IncomingDocument in
                guard case .object(let object) = value else { throw HTTPFailure.badRequest("Document must be a JSON object") }
                return try IncomingDocument(object)
            }
            // A document without an id is answered with the one `chttpd_db` gives it before fabric refuses it.
            let refused = parsed.map { incoming -> JSONValue in
                [
                    "id": .string(incoming.id ?? registry.makeDocumentID()), "rev": .string(incoming.rev?.description ?? "0-"),
                    "error": "not_implemented", "reason": "all_or_nothing is not supported",
                ]
            }
            return CouchResponse.json(.array(refused), status: 417)
        }
        let store = try await authorizedStore(database, for: request.user, access: .member)
        // `couch_db:doc_from_json_obj_validate/2` checks every given id of a partitioned database before
        // anything is written, the general rules first (`couch_doc:validate_docid`), then `partition:id`: one
        // bad id fails the whole request.
        if try await store.isPartitioned() {
            for value in docs {
                guard let id = value["_id"]?.stringValue else { continue }
                try DocumentID.validate(id)
                try DocumentPartition.validateDocumentID(id)
            }
        }
        // Entries answered in their place without reaching the store: `_replicator` documents that cannot be a
        // replication (CouchDB's validation function refuses them one by one), entries the user may not write.
        var refused: [Int: JSONValue] = [:]
        // `couch_db:validate_doc_update/3` checks for an admin per design document and files the refusal under
        // it: a member's batch is written, each design document in it answered `forbidden` (`unauthorized` for
        // an anonymous user) in its place, so a member's replication goes on past a design document.
        if !request.user.isServerAdmin, !(try await securityObject(of: store)).isAdmin(request.user) {
            let reason = "You are not a db or server admin."
            let failure = request.user.isAuthenticated ? HTTPFailure.forbidden(reason) : HTTPFailure.unauthorized(reason)
            for (index, value) in docs.enumerated() {
                guard case .object(let object) = value, object["_id"]?.stringValue?.hasPrefix("_design/") == true else { continue }
                refused[index] = Self.refusal(of: object, failure)
            }
        }
        if database == ReplicatorDatabase.name, newEdits {
            for (index, value) in docs.enumerated() {
                guard case .object(let object) = value else { continue }
                do {
                    docs[index] = .object(try ReplicatorDatabase.prepare(object, user: request.user))
                } catch let failure as HTTPFailure {
                    refused[index] = Self.refusal(of: object, failure)
                }
            }
        }
        if database == usersDatabase {
            for (index, value) in docs.enumerated() {
                guard case .object(let object) = value else { continue }
                docs[index] = .object(
                    try await UsersDatabase.prepare(
                        object, settings: nodeConfiguration.passwordSettings, validatesNatively: validatesUsersNatively,
                        hashing: hashing, client: request.clientAddress))
            }
        }
        let accepted = try Self.writeQuorumUnmet(request, bodyW: body["w"])
        let status = accepted ? 202 : 201
        let access = try await documentAccess(of: store, for: request.user)
        guard access.field != nil || !refused.isEmpty else {
            let results = try await store.bulkDocs(docs, newEdits: newEdits)
            return CouchResponse.json(.array(results.map { Self.markAccepted($0.json, accepted) }), status: status)
        }
        // Per-document access: each entry is checked (and its list carried over) on its own; a refused one is
        // answered `forbidden` in its place, as CouchDB answers a document its validation refuses.
        var allowed: [JSONValue] = []
        var allowedIndices: [Int] = []
        for (index, value) in docs.enumerated() where refused[index] == nil {
            guard case .object(let object) = value, access.field != nil else {
                allowed.append(value)
                allowedIndices.append(index)
                continue
            }
            do {
                allowed.append(.object(try await access.prepareWrite(object, in: store, replicated: !newEdits)))
                allowedIndices.append(index)
            } catch let failure as HTTPFailure {
                refused[index] = Self.refusal(of: object, failure)
            }
        }
        let written = try await store.bulkDocs(allowed, newEdits: newEdits)
        guard newEdits else {
            // `new_edits=false` answers only the failures (CouchDB's replicator has no case for anything else), in
            // the order of the request: each store failure goes where its document was.
            var failures = refused
            var unmatched = Array(zip(allowedIndices, allowed))
            for failure in written {
                let json = failure.json
                let position = unmatched.firstIndex { $0.1["_id"] == json["id"] && (json["rev"] == nil || $0.1["_rev"] == json["rev"]) }
                let index = position.map { unmatched.remove(at: $0).0 } ?? (docs.count + failures.count)
                failures[index] = json
            }
            return CouchResponse.json(.array(failures.sorted { $0.key < $1.key }.map(\.value)), status: status)
        }
        var answers = written.map { Self.markAccepted($0.json, accepted) }.makeIterator()
        let results = docs.indices.compactMap { index in refused[index] ?? answers.next() }
        return CouchResponse.json(.array(results), status: status)
    }

    /// The `_bulk_docs` row of an entry refused before it reached the store.
    private static func refusal(of object: JSONObject, _ failure: HTTPFailure) -> JSONValue {
        var answer = JSONObject()
        if let id = object["_id"] { answer["id"] = id }
        // As the store answers: a conflict row names no revision.
        if let rev = object["_rev"], failure.body.error != "conflict" { answer["rev"] = rev }
        answer["error"] = .string(failure.body.error)
        answer["reason"] = failure.body.reasonJSON
        return .object(answer)
    }

    /// A successful `_bulk_docs` row of an accepted (quorum unmet) batch says so, as CouchDB's
    /// `update_doc_result_to_json/2` does for `{accepted, Rev}`.
    private static func markAccepted(_ row: JSONValue, _ accepted: Bool) -> JSONValue {
        guard accepted, case .object(var object) = row, object["ok"] == true else { return row }
        object["accepted"] = true
        return .object(object)
    }

    /// Refuses a document whose body is larger than `couchdb/max_document_size` (`couch_doc:
    /// from_json_obj_validate/2`): `413 document_too_large` naming the document; then one with an attachment
    /// longer than ``ServerConfiguration/maxAttachmentSize`` (``checkAttachmentSizes(_:limit:)``).
    func checkDocumentSize(_ document: JSONValue) throws {
        guard case .object(let object) = document else { return }
        let limit = nodeConfiguration.maxDocumentSize
        // Only a document near the limit is measured without its metadata.
        if JSONValue.object(object).jsonBytes().count > limit {
            let body = JSONObject(object.members.filter { !RevisionHash.metadataMembers.contains($0.key) })
            if JSONValue.object(body).jsonBytes().count > limit {
                throw HTTPFailure(status: 413, error: "document_too_large", reason: object["_id"]?.stringValue ?? "")
            }
        }
        try Self.checkAttachmentSizes(object, limit: configuration.maxAttachmentSize)
    }

    /// `couch_doc:validate_attachment_sizes/1`: an attachment longer than `limit` is `413 attachment_too_large`
    /// with its name as the reason, whether its data is inline or it is a stub or a `follows` part, which
    /// declare their length (the encoded one for an encoded attachment, `couch_att:encoded_lengths_from_json/1`).
    static func checkAttachmentSizes(_ document: JSONObject, limit: Int) throws {
        guard case .object(let attachments)? = document["_attachments"] else { return }
        for (name, value) in attachments.members {
            guard case .object(let attachment) = value, let length = declaredLength(attachment), length > limit else { continue }
            throw HTTPFailure(status: 413, error: "attachment_too_large", reason: name)
        }
    }

    /// The length `couch_att:from_json/2` gives an attachment: its inline data's decoded length, or for a stub or
    /// a `follows` part its `length`, or `encoded_length` when it names an encoding.
    private static func declaredLength(_ attachment: JSONObject) -> Int? {
        if attachment["stub"] == .bool(true) || attachment["follows"] == .bool(true) {
            let length = attachment["length"]?.numberValue?.int64Value
            let encoded = attachment["encoding"] == nil ? length : attachment["encoded_length"]?.numberValue?.int64Value ?? length
            return encoded.map { Int(clamping: $0) }
        }
        guard case .string(let data)? = attachment["data"] else { return nil }
        // Base64's four characters for three bytes, without its padding.
        let characters = data.utf8.count { $0 != UInt8(ascii: "=") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\n") && $0 != UInt8(ascii: "\r") }
        return characters * 3 / 4
    }

    /// `POST /{db}/_bulk_get`: JSON, or MIME parts (`multipart/mixed`, else `multipart/related`) for a client
    /// that does not take JSON but takes either, as CouchDB's `bulk_get_is_multipart/1` decides.
    func bulkGet(_ request: CouchRequest, database: String) async throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        let store = try await authorizedStore(database, for: request.user, access: .member)
        let body = try request.jsonObjectBody()
        guard let entries = body["docs"]?.arrayValue else {
            throw HTTPFailure.badRequest("Missing JSON list of 'docs'.")  // CouchDB: 500 for a non-list (a crash)
        }
        // Only then does `bulk_get_parse_doc_query/1` read the query, refusing the first of these it meets.
        let refusedNames: Set<String> = ["rev", "open_revs", "atts_since", "new_edits", "w"]
        if let rejected = request.query.ordered.first(where: { refusedNames.contains($0.name) }) {
            throw HTTPFailure.badRequest("\"\(rejected.name)\" query parameter is not acceptable")
        }
        // Options come from the query alone (`bulk_get_parse_doc_query/1`): members of the body beside `docs`,
        // such as `latest` or `revs`, are not read.
        let latest = request.query.flag("latest")
        var options = try Self.readOptions(request.query)
        options.rev = nil
        let accept = request.header(.accept)
        let multipart =
            !MediaType.accepts("application/json", in: accept)
            && (MediaType.accepts("multipart/mixed", in: accept) || MediaType.accepts("multipart/related", in: accept))
        // Entries are checked first; the valid ones are read together in one transaction.
        let access = try await readAccess(of: store, for: request.user)
        var parsed = entries.map { Self.bulkGetEntry($0, options: options, parts: multipart) }
        if try await store.isPartitioned() {
            // `couch_partition:validate_docid/1` per entry: an id that is not `partition:id` is that entry's error.
            for (index, entry) in parsed.enumerated() {
                guard case .read(let read, _) = entry else { continue }
                do {
                    try DocumentPartition.validateDocumentID(read.id)
                } catch let error as CloudantError {
                    // `couch_db:validate_docid/2` fails before the entry's `rev` is read: the answer names none.
                    let body = CouchErrorBody(error)
                    parsed[index] = .invalid(Self.bulkGetFailure(.string(read.id), .null, body.error, body.reason))
                }
            }
        }
        if access.isRestricted {
            // A document the user may not see is answered exactly as one that does not exist.
            for (index, entry) in parsed.enumerated() {
                guard case .read(let read, let rev) = entry, !(try await access.allowsDocument(id: read.id, in: store))
                else { continue }
                parsed[index] = .invalid(Self.bulkGetFailure(.string(read.id), rev ?? "undefined", "not_found", "missing"))
            }
        }
        let requests = parsed.compactMap { if case .read(let request, _) = $0 { request } else { nil } }
        var answers = try await store.openRevisions(requests, latest: latest).makeIterator()
        let results: [BulkGetResult] = parsed.map { entry in
            switch entry {
            case .invalid(let failure): return failure
            case .read(let request, let rev):
                switch answers.next() {
                case .success(let revisions)?: return .revisions(id: request.id, revisions)
                case .failure(let error)?:
                    // A document never seen reports `"rev": "undefined"`.
                    let body = CouchErrorBody(error)
                    return Self.bulkGetFailure(.string(request.id), rev ?? "undefined", body.error, body.reason)
                case nil:
                    return Self.bulkGetFailure(.string(request.id), rev ?? .null, "unknown_error", "no answer")
                }
            }
        }
        if multipart {
            let subtype = MediaType.accepts("multipart/mixed", in: accept) ? "mixed" : "related"
            return Self.bulkGetMultipart(results, subtype: subtype, store: store)
        }
        return CouchResponse.json(["results": .array(results.map(\.json))])
    }

    /// What `_bulk_get` answers for one entry: the revisions read, or the entry's error: an object naming
    /// the `id`, `rev`, `error` and `reason`, which the JSON answer wraps and a MIME answer sends as its part.
    enum BulkGetResult {
        case revisions(id: String, [OpenRevisionResult])
        case failure(id: JSONValue, error: JSONValue)

        /// The entry as a JSON answer's `results` member.
        var json: JSONValue {
            switch self {
            case .failure(let id, let error): return ["id": id, "docs": [["error": error]]]
            case .revisions(let id, let revisions):
                let docs: [JSONValue] = revisions.map { result in
                    switch result {
                    case .ok(let document): return ["ok": .object(document)]
                    case .missing(let missing):
                        return ["error": ["id": .string(id), "rev": .string(missing), "error": "not_found", "reason": "missing"]]
                    }
                }
                return ["id": .string(id), "docs": .array(docs)]
            }
        }
    }

    /// One `_bulk_get` entry: a request to read, or the failure answered for an entry that cannot be one.
    private enum BulkGetEntry {
        case read(OpenRevisionsRequest, rev: JSONValue?)
        case invalid(BulkGetResult)
    }

    private static func bulkGetFailure(_ id: JSONValue, _ rev: JSONValue, _ error: String, _ reason: String) -> BulkGetResult {
        .failure(id: id, error: ["id": id, "rev": rev, "error": .string(error), "reason": .string(reason)])
    }

    /// One `_bulk_get` entry, checked as CouchDB's `bulk_get_parse_arg` checks it; a bad entry's error names
    /// the id and revision CouchDB names (`null` for both when the entry is not an object or has no id).
    /// With `parts`, each revision is read with its attachments as stored, for a MIME answer (CouchDB's
    /// multipart `_bulk_get` always sends attachment bytes, except those the entry's `atts_since` holds).
    private static func bulkGetEntry(_ entry: JSONValue, options: ReadOptions, parts: Bool) -> BulkGetEntry {
        guard case .object(let object) = entry, !object.isEmpty else {
            return .invalid(bulkGetFailure(.null, .null, "bad_request", "document must be a JSON object"))
        }
        guard let rawID = object["id"] else {
            return .invalid(bulkGetFailure(.null, .null, "bad_request", "document id missed"))
        }
        guard let id = rawID.stringValue else {
            return .invalid(bulkGetFailure(rawID, .null, "illegal_docid", "Document id must be a string"))
        }
        do {
            try DocumentID.validate(id)
        } catch let error as CloudantError {
            return .invalid(bulkGetFailure(.string(id), .null, "illegal_docid", error.message))
        } catch {
            return .invalid(bulkGetFailure(.string(id), .null, "illegal_docid", "\(error)"))
        }
        var entryOptions = options
        let rev = object["rev"]
        if let rev, rev.stringValue.flatMap({ try? RevisionID(parsing: $0) }) == nil {
            return .invalid(bulkGetFailure(.string(id), rev, "bad_request", "Invalid rev format"))
        }
        if let since = object["atts_since"], since != .null, since != .array([]) {
            guard let list = since.arrayValue else {
                return .invalid(bulkGetFailure(.string(id), since, "bad_request", "att_since value must be array of revs."))
            }
            for value in list where value.stringValue.flatMap({ try? RevisionID(parsing: $0) }) == nil {
                return .invalid(bulkGetFailure(.string(id), value, "bad_request", "Invalid rev format"))
            }
            entryOptions.attachmentsSince = list.compactMap(\.stringValue)
        }
        if parts {
            entryOptions.attachments = entryOptions.attachmentsSince.isEmpty
            entryOptions.attachmentsAsStored = true
            entryOptions.inlineAttachmentLimit = Self.streamedAttachmentSize
        }
        guard let text = rev?.stringValue else {
            return .read(OpenRevisionsRequest(id: id, .all, options: entryOptions, order: .bulkGet), rev: nil)
        }
        return .read(OpenRevisionsRequest(id: id, .revisions([text]), options: entryOptions, order: .bulkGet), rev: rev)
    }
}
