internal import CloudantCore
internal import Hummingbird

extension CouchEndpoint {
    /// The CouchDB version this server answers as (`GET /` `version`).
    static var couchDBVersion: String { CloudantVersion.couchDBCompatibility }

    /// What `GET /` lists in `features`: capabilities of this server a client may look for.
    static let features: [String] = ["mango", "local-docs", "bulk-get", "changes-selector", "pbkdf2-users"]

    /// `GET /`: the welcome object (anonymous, as CouchDB).
    func root(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        return CouchResponse.json([
            "couchdb": "Welcome", "version": .string(Self.couchDBVersion), "uuid": .string(identity.uuid),
            "features": .array(Self.features.map(JSONValue.string)),
            "vendor": ["name": "OTFCloudantStore", "version": .string(CloudantVersion.current)],
        ])
    }

    /// `GET /_up` (anonymous, as CouchDB).
    func up(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        return CouchResponse.json(["status": "ok", "seeds": [:]])
    }

    /// `GET /_all_dbs`: server admins only, as CouchDB 3 (`admin_only_all_dbs = true`).
    func allDatabases(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        try requireServerAdmin(request.user)
        var names = try registry.names()
        if try request.query.bool("descending", default: false) { names.reverse() }
        let skip = max(0, try request.query.int("skip") ?? 0)
        let limit = try request.query.int("limit") ?? Int.max
        return CouchResponse.json(.array(names.dropFirst(skip).prefix(max(0, limit)).map(JSONValue.string)))
    }

    /// `GET /_uuids?count=N` (at most 1000, as CouchDB's `max_count`).
    func uuids(_ request: CouchRequest) throws -> Response {
        guard request.method == .get || request.method == .head else { throw unsupported("GET,HEAD") }
        let count = try request.query.int("count") ?? 1
        guard count <= 1000 else { throw HTTPFailure.badRequest("count parameter too large") }
        guard count >= 0 else { throw HTTPFailure.badRequest("count must be a positive integer") }
        let uuids = (0..<count).map { _ in JSONValue.string(Hex.encode(SecureRandom.bytes(16))) }
        return CouchResponse.json(["uuids": .array(uuids)])
    }
}
