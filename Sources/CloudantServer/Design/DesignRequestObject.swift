internal import CloudantCore
internal import CloudantStore
internal import Foundation
internal import HTTPTypes

/// The request object design functions receive (`req`), as CouchDB's `chttpd_external:json_req_obj` makes
/// it: the database's info, a fresh UUID, the document id, method, paths, query (with `key`, `startkey`,
/// `endkey` and `descending` decoded from JSON), headers (without credentials: `Authorization`, `Cookie` and
/// `X-Auth-CouchDB-Token` are removed, as CouchDB's `scrub_json_request` does), body, peer, form fields,
/// cookies (none, scrubbed), `userCtx` and `secObj`.
struct DesignRequestObject {
    var request: CouchRequest
    var database: String
    var documentID: String?
    /// The path as the function sees it (a rewritten request's target); the request's own by default.
    var path: [String]?
    /// The body as JSON, for the requests CouchDB parses it for before the function runs (a `POST` to a list or
    /// to `_changes`); nil for the body as text.
    var parsedBody: JSONValue?

    func json(store: DocumentStore, security: JSONValue) async throws -> JSONObject {
        let info = try await store.info().json
        var object = JSONObject()
        object["info"] = info
        object["uuid"] = .string(StoreOptions.randomHexID())
        object["id"] = documentID.map(JSONValue.string) ?? .null
        object["method"] = .string(request.method.rawValue)
        let segments = (path ?? request.segments).map(JSONValue.string)
        object["requested_path"] = .array(request.segments.map(JSONValue.string))
        object["path"] = .array(segments)
        object["raw_path"] = .string(request.rawTarget)
        object["query"] = .object(try query())
        object["headers"] = .object(headers())
        object["body"] = parsedBody ?? body()
        object["peer"] = .string(request.clientAddress ?? "127.0.0.1")
        object["form"] = .object(form())
        object["cookie"] = .object(JSONObject())
        object["userCtx"] = [
            "db": .string(database), "name": request.user.name.map(JSONValue.string) ?? .null,
            "roles": .array(request.user.roles.map(JSONValue.string)),
        ]
        object["secObj"] = security
        return object
    }

    /// The body as text; `"undefined"` for a request that sends none (neither `Content-Length` nor chunked
    /// encoding), as mochiweb's `recv_body` reads it for `chttpd_external`.
    private func body() -> JSONValue {
        if request.body.isEmpty, request.header(.contentLength) == nil, request.header(.transferEncoding) == nil {
            return "undefined"
        }
        return .string(String(decoding: request.body, as: UTF8.self))
    }

    /// The query string's parameters; `key`, `startkey`, `endkey` and `descending` as the JSON they hold.
    /// - Throws: ``HTTPFailure`` `400 bad_request` "invalid UTF-8 JSON" when one of those is not JSON.
    private func query() throws -> JSONObject {
        var members: [(String, JSONValue)] = []
        for (name, value) in request.query.ordered {
            if ["key", "startkey", "endkey", "descending"].contains(name) {
                guard let decoded = try? JSONValue(parsing: value) else { throw HTTPFailure.badRequest("invalid UTF-8 JSON") }
                members.append((name, decoded))
            } else {
                members.append((name, .string(value)))
            }
        }
        return JSONObject(members)
    }

    private func headers() -> JSONObject {
        let scrubbed: Set<String> = ["authorization", "cookie", "x-auth-couchdb-token"]
        var members: [(String, JSONValue)] = []
        // HTTP/1.1's `Host` arrives as the request's authority, not among its fields; CouchDB's `req.headers`
        // has it.
        if let authority = request.authority { members.append(("Host", .string(authority))) }
        for field in request.headers where !scrubbed.contains(field.name.canonicalName) {
            members.append((field.name.rawName, .string(field.value)))
        }
        return JSONObject(members)
    }

    /// Form fields of a `POST` or `PUT` with `application/x-www-form-urlencoded` content.
    private func form() -> JSONObject {
        guard request.method == .post || request.method == .put,
            request.header(.contentType)?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
        else { return JSONObject() }
        let parsed = QueryParameters(rawQuery: String(decoding: request.body, as: UTF8.self))
        return JSONObject(parsed.ordered.map { ($0.name, JSONValue.string($0.value)) })
    }
}

extension CouchEndpoint {
    /// The request object for a design function of `store`.
    func requestObject(
        _ request: CouchRequest, store: DocumentStore, database: String, documentID: String? = nil, path: [String]? = nil,
        parsedBody: JSONValue? = nil
    ) async throws -> JSONObject {
        let security = try await securityObject(of: store).json
        return try await DesignRequestObject(request: request, database: database, documentID: documentID, path: path, parsedBody: parsedBody)
            .json(store: store, security: security)
    }

    /// The design document `name` (without `_design/`) of `store` with `_id` and `_rev`.
    /// - Throws: ``HTTPFailure`` `404` when it is missing (`missing`) or deleted (`deleted`).
    func designDocument(_ name: String, in store: DocumentStore) async throws -> JSONObject {
        try await store.document(id: "_design/" + name)
    }

    /// The runtime that runs the server's design functions.
    /// - Throws: ``HTTPFailure`` `501 not_implemented` when the server runs none; `500 unknown_query_language`
    ///   (the language as its reason, as CouchDB answers) when its engine does not run `language`.
    func designRuntime(language: String = "javascript") throws -> any DesignFunctionRuntime {
        guard let runtime = configuration.designFunctions else {
            throw HTTPFailure(
                status: 501, error: "not_implemented",
                reason: "This server runs no \(language) design functions (start it with a JavaScript engine).")
        }
        guard runtime.languages.contains(language) else {
            throw HTTPFailure(status: 500, error: "unknown_query_language", reason: language)
        }
        return runtime
    }
}
