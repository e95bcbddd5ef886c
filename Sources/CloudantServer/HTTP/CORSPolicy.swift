/// Cross-origin resource sharing as CouchDB's `chttpd_cors` does it, for browser clients such as PouchDB and
/// Fauxton served from another origin.
///
/// Off unless `[chttpd] enable_cors = true`; then an origin listed in `[cors] origins` (or `*`) gets
/// `Access-Control-Allow-Origin` on every answer, with `Access-Control-Expose-Headers` naming the answer's
/// non-simple headers and CouchDB's own; a preflight `OPTIONS` whose method and headers are allowed is
/// answered 204 with the allowed methods, the requested headers and `Access-Control-Max-Age`. Credentials
/// (`[cors] credentials = true`) are never allowed for `*`.
struct CORSPolicy: Sendable, Equatable {
    var origins: [String]
    var credentials: Bool
    /// Allowed request headers, lowercased (CouchDB's `SUPPORTED_HEADERS` when none are configured).
    var headers: [String]
    /// Allowed methods (CouchDB's `SUPPORTED_METHODS` when none are configured).
    var methods: [String]
    var maxAge: Int

    static let supportedHeaders = [
        "accept", "accept-language", "authorization", "content-length", "content-range", "content-type",
        "destination", "expires", "if-match", "last-modified", "origin", "pragma", "x-couch-full-commit", "x-couch-id",
        "x-couch-persist", "x-couchdb-www-authenticate", "x-http-method-override", "x-requested-with",
        "x-couchdb-vhost-path",
    ]
    static let supportedMethods = ["CONNECT", "COPY", "DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT", "TRACE"]
    static let simpleHeaders = ["cache-control", "content-language", "content-type", "expires", "last-modified", "pragma"]
    static let couchHeaders = ["accept-ranges", "etag", "server", "x-couch-request-id", "x-couch-update-newrev", "x-couchdb-body-time"]

    init(origins: [String], credentials: Bool, headers: [String], methods: [String], maxAge: Int) {
        self.origins = origins
        self.credentials = credentials
        self.headers = headers.isEmpty ? Self.supportedHeaders : headers.map { $0.lowercased() }
        self.methods = methods.isEmpty ? Self.supportedMethods : methods
        self.maxAge = maxAge
    }

    private func accepts(_ origin: String) -> Bool { origins.contains("*") || origins.contains(origin) }

    private func credentialHeaders(_ origin: String) -> [(String, String)] {
        credentials && origin != "*" ? [("Access-Control-Allow-Credentials", "true")] : []
    }

    /// The 204 answer's headers to a preflight request, or nil when it is not one this policy allows (the
    /// request then goes on as an ordinary `OPTIONS`).
    func preflight(origin: String?, requestMethod: String?, requestHeaders: String?) -> [(String, String)]? {
        guard let origin, accepts(origin), let requestMethod, methods.contains(requestMethod) else { return nil }
        let asked = (requestHeaders ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        guard asked.allSatisfy(headers.contains) else { return nil }
        return [
            ("Access-Control-Allow-Origin", origin), ("Access-Control-Max-Age", String(maxAge)),
            ("Access-Control-Allow-Methods", methods.joined(separator: ", ")),
        ] + credentialHeaders(origin) + [("Access-Control-Allow-Headers", requestHeaders ?? "")]
    }

    /// The headers to add to an ordinary answer for `origin` (none when it is not allowed): the answer's
    /// simple headers are exposed with `content-type` first, then CouchDB's own (`maybe_apply_headers/3`,
    /// whose content-type test never matches, so `content-type` is always listed).
    /// - Parameter responseHeaderNames: The answer's header names, to expose its simple ones.
    func headers(origin: String?, responseHeaderNames: [String]) -> [(String, String)] {
        guard let origin = origin?.lowercased(), accepts(origin) else { return [] }
        var exposed = responseHeaderNames.map { $0.lowercased() }.filter(Self.simpleHeaders.contains)
        exposed.removeAll { $0 == "content-type" }
        exposed.insert("content-type", at: 0)
        return [("Access-Control-Allow-Origin", origin)] + credentialHeaders(origin)
            + [("Access-Control-Expose-Headers", (exposed + Self.couchHeaders).joined(separator: ", "))]
    }
}
