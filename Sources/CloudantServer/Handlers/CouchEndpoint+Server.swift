internal import CloudantCore
internal import Hummingbird

extension CouchEndpoint {
    /// The CouchDB version this server answers as (`GET /` `version`).
    static var couchDBVersion: String { CloudantVersion.couchDBCompatibility }

    /// What `GET /` lists in `features`: the names CouchDB registers (`config:features()`, sorted) for what this
    /// server serves as CouchDB does: partitioned databases and the replication scheduler. Fauxton and other
    /// clients look for these names; CouchDB's `access-ready`, `pluggable-storage-engines` and `reshard` are
    /// left out, as nothing here answers to them.
    static let features: [String] = ["partitioned", "scheduler"]

    /// `GET /`: the welcome object (anonymous, as CouchDB).
    func root(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        return CouchResponse.json([
            "couchdb": "Welcome", "version": .string(Self.couchDBVersion), "uuid": .string(identity.uuid),
            "features": .array(Self.features.map(JSONValue.string)),
            "vendor": ["name": "OTFCloudantStore", "version": .string(CloudantVersion.current)],
        ])
    }

    /// `POST /_reload_query_servers` (server admins, `Content-Type: application/json`, as
    /// `chttpd_misc:handle_reload_query_servers_req/1`): the design-function engine starts afresh
    /// (`DesignFunctionRuntime.reload()`); `{"ok": true}`.
    func reloadQueryServers(_ request: CouchRequest) throws -> Response {
        guard request.method == .post else { throw unsupported("POST") }
        try request.requireJSONContentType()
        configuration.designFunctions?.reload()
        return CouchResponse.json(["ok": true])
    }

    /// `GET /_up` (anonymous, as CouchDB): `{"seeds":{},"status":"ok"}`, or `404` with `maintenance_mode` or
    /// `nolb` while `couchdb/maintenance_mode` says so (`chttpd_misc:handle_up_req/1`), so a load balancer can
    /// drain the node.
    func up(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        switch nodeConfiguration.value("couchdb", "maintenance_mode") {
        case "true": return CouchResponse.json(["status": "maintenance_mode"], status: 404)
        case "nolb": return CouchResponse.json(["status": "nolb"], status: 404)
        default: return CouchResponse.json(["seeds": [:], "status": "ok"])
        }
    }

    /// `GET /_all_dbs`: server admins only unless `chttpd/admin_only_all_dbs` is false (``RequestAuthorization``).
    func allDatabases(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        // `handle_all_dbs_req/1`: a longer path is no resource at all.
        guard request.segments.count == 1 else { throw HTTPFailure(status: 404, error: "not_found", reason: "missing") }
        let names = DatabaseNamePage.names(try registry.names(), query: try DatabaseNamePage.query(request))
        return CouchResponse.json(.array(names.map(JSONValue.string)))
    }

    /// `GET /_uuids?count=N` (at most `uuids/max_count`, 1000), with CouchDB's cache-busting headers and an
    /// ETag of the list (`couch_httpd_misc_handlers:handle_uuids_req/1`).
    func uuids(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET") }
        let count: Int
        if let text = request.query["count"] {
            guard let parsed = Int(text) else {
                // Any number of digits is an integer (`list_to_integer/1`): one past 64 bits is too large.
                let digits = text.hasPrefix("+") ? text.dropFirst() : Substring(text)
                let tooLarge = !digits.isEmpty && digits.allSatisfy { ("0"..."9").contains($0) }
                throw HTTPFailure.badRequest(tooLarge ? "count parameter too large" : "count must be a positive integer")
            }
            count = parsed
        } else {
            count = 1
        }
        guard count <= nodeConfiguration.maxUUIDCount else { throw HTTPFailure.badRequest("count parameter too large") }
        guard count >= 0 else { throw HTTPFailure.badRequest("count must be a positive integer") }
        let uuids = (0..<count).map { _ in self.uuids.next() }
        return CouchResponse.json(
            ["uuids": .array(uuids.map(JSONValue.string))],
            headers: [
                ("Cache-Control", "no-cache"), ("Expires", "Mon, 01 Jan 1990 00:00:00 GMT"), ("Pragma", "no-cache"),
                ("ETag", Self.etag(ofTerm: uuids)),
            ])
    }

    /// CouchDB's `couch_httpd:make_etag/1` of a list of binaries: the MD5 of its external term, in base 36,
    /// quoted.
    static func etag(ofTerm binaries: [String]) -> String {
        var term = ErlangTermWriter()
        term.writeVersion()
        if !binaries.isEmpty {
            term.writeListHeader(count: binaries.count)
            for binary in binaries { term.writeBinary(binary) }
        }
        term.writeNil()
        return "\"" + Base36.encode(AttachmentDigest.md5(term.bytes)) + "\""
    }
}

/// Big-endian bytes written in base 36 with uppercase letters, as Erlang's `io_lib:format("~.36B", [N])`.
enum Base36 {
    static func encode(_ bytes: [UInt8]) -> String {
        var number = bytes.map { UInt32($0) }
        var digits: [UInt8] = []
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        while number.contains(where: { $0 != 0 }) {
            var remainder: UInt32 = 0
            for index in number.indices {
                let current = remainder << 8 | number[index]
                number[index] = current / 36
                remainder = current % 36
            }
            digits.append(alphabet[Int(remainder)])
        }
        return digits.isEmpty ? "0" : String(decoding: digits.reversed(), as: UTF8.self)
    }
}
