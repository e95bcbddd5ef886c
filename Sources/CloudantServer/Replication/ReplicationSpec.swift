internal import CloudantCore
internal import Foundation

/// One end of a replication as a `POST /_replicate` body or a `_replicator` document names it: a database of
/// this server by name, or a database URL with its credentials (in the URL, in `headers`, or in `auth.basic`).
///
/// CouchDB 3 refuses local names (`local_endpoints_not_supported`); this server serves them, since its databases
/// are in the same process, and a URL to this server works as it does on CouchDB.
struct ReplicationEndpoint: Sendable, Hashable {
    enum Location: Sendable, Hashable {
        /// A database of this server.
        case local(String)
        /// A database over HTTP; `url` still holds any `user:password@`.
        case remote(url: URL, headers: [String: String])
    }

    var location: Location

    /// The endpoint as CouchDB shows it in `_scheduler` answers and reasons: a local name, or the URL without
    /// credentials and with a trailing slash (`couch_util:url_strip_password` on the parsed URL). Never a secret.
    var display: String {
        switch location {
        case .local(let name): return name
        case .remote(let url, _):
            guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
            components.user = nil
            components.password = nil
            if !components.path.hasSuffix("/") { components.path += "/" }
            return components.string ?? ""
        }
    }

    /// Reads `source` or `target` (`which`) of a replication body.
    /// - Throws: ``HTTPFailure`` `400 bad_request` for a missing or malformed endpoint.
    init(_ value: JSONValue?, which: String) throws {
        switch value {
        case .string(let text)?:
            if text.hasPrefix("http://") || text.hasPrefix("https://") {
                location = .remote(url: try Self.url(text), headers: [:])
            } else {
                guard DatabaseRegistry.isValidName(text) else { throw DatabaseRegistry.illegalName(text) }
                location = .local(text)
            }
        case .object(let object)?:
            guard let text = object["url"]?.stringValue, text.hasPrefix("http://") || text.hasPrefix("https://") else {
                throw ReplicationEndpoint.invalidURL
            }
            var url = try Self.url(text)
            var headers: [String: String] = [:]
            for (name, header) in object["headers"]?.objectValue?.members ?? [] {
                guard let text = header.stringValue else { throw HTTPFailure.badRequest("\(which) headers must be strings") }
                headers[name] = text
            }
            // `auth.basic` (CouchDB 3.2+): the same as credentials in the URL.
            if let basic = object["auth"]?["basic"]?.objectValue,
                let user = basic["username"]?.stringValue, let password = basic["password"]?.stringValue,
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            {
                components.user = user
                components.password = password
                url = components.url ?? url
            }
            location = .remote(url: url, headers: headers)
        case nil, .null?:
            throw HTTPFailure.badRequest("Missing replicator database")
        default:
            throw ReplicationEndpoint.invalidURL
        }
    }

    /// `couch_replicator_parse:check_url/2`'s refusal, which `chttpd:error_info/1` answers as
    /// `400 invalid_replication` (the endpoint is named `endpoint` whichever side it is).
    static let invalidURL = HTTPFailure(status: 400, error: "invalid_replication", reason: "endpoint has an invalid url")

    private static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text), url.host != nil, url.path.count > 1 else { throw invalidURL }
        return url
    }
}

/// What a `POST /_replicate` body or a `_replicator` document asks for, parsed by `couch_replicator_parse`'s
/// rules: the two endpoints, `continuous`, `create_target`, one of `doc_ids`, `selector` or `filter` (with
/// `query_params`), and `connection_timeout`.
struct ReplicationSpec: Sendable {
    var source: ReplicationEndpoint
    var target: ReplicationEndpoint
    var continuous = false
    var createTarget = false
    var documentIDs: [String]?
    var selector: JSONValue?
    var useCheckpoints = true
    var batchSize: Int?
    var sinceSeq: JSONValue?
    /// A design document's filter function (`ddocname/filtername`) or a source's built-in one, with
    /// `query_params`.
    var filter: (name: String, parameters: [String: String])?
    /// How long one request to a remote endpoint may take (`connection_timeout`, in milliseconds); the
    /// server's ``ReplicatorSettings/connectionTimeout`` when nil.
    var connectionTimeout: Duration?

    /// The suffix CouchDB appends to a replication id for the options that make otherwise equal replications
    /// distinct jobs (`couch_replicator_ids:maybe_append_options/2`).
    var idSuffix: String { (continuous ? "+continuous" : "") + (createTarget ? "+create_target" : "") }

    /// Parses a body; `cancel` and `replication_id` are read by the caller.
    /// - Throws: ``HTTPFailure`` `400 bad_request` with CouchDB's reason for a malformed field.
    init(_ body: JSONObject) throws {
        // `couch_replicator_parse:parse_rep_doc_without_id/2` reads the proxies and the options before the endpoints.
        let names: (String) -> Bool = { name in body[name].map { $0 != .string("") } ?? false }
        for side in ["source_proxy", "target_proxy"] where names("proxy") && names(side) {
            throw HTTPFailure.badRequest("`proxy` is mutually exclusive with `\(side)`")
        }
        if let parameters = body["create_target_params"], parameters.objectValue == nil {
            throw HTTPFailure.badRequest("parameter `create_target_params` must be a JSON object")
        }
        source = try ReplicationEndpoint(body["source"], which: "source")
        target = try ReplicationEndpoint(body["target"], which: "target")
        continuous = try Self.flag(body, "continuous")
        createTarget = try Self.flag(body, "create_target")
        useCheckpoints = try body["use_checkpoints"].map { value in
            guard let flag = value.boolValue else { throw HTTPFailure.badRequest("parameter `use_checkpoints` must be a boolean") }
            return flag
        } ?? true
        if let size = body["worker_batch_size"] {
            guard let value = size.numberValue?.int64Value, value > 0 else {
                throw HTTPFailure.badRequest("parameter `worker_batch_size` must be an integer greater than 0")
            }
            batchSize = Int(value)
        }
        sinceSeq = body["since_seq"]
        let given = ["doc_ids", "filter", "selector"].filter { body[$0] != nil && body[$0] != .null }
        guard given.count <= 1 else { throw HTTPFailure.badRequest("`doc_ids`,`filter`,`selector` are mutually exclusive") }
        if let ids = body["doc_ids"], ids != .null {
            guard let list = ids.arrayValue, list.allSatisfy({ $0.stringValue != nil }) else {
                throw HTTPFailure.badRequest("parameter `doc_ids` must be an array")
            }
            // `couch_replicator_parse`: each id URL-decoded (`_design%2Ffoo` is `_design/foo`), sorted, once each.
            documentIDs = Array(Set(list.compactMap { $0.stringValue.map { $0.removingPercentEncoding ?? $0 } })).sorted()
        }
        if let selector = body["selector"], selector != .null {
            guard selector.objectValue != nil else { throw HTTPFailure.badRequest("parameter `selector` must be a JSON object") }
            do {
                _ = try MangoSelector(selector)
            } catch {
                throw HTTPFailure.badRequest("parameter `selector` is not a valid selector: \(error.message)")
            }
            self.selector = selector
        }
        if let filter = body["filter"], filter != .null {
            try parseFilter(filter, queryParameters: body["query_params"])
        }
        if let timeout = body["connection_timeout"] {
            guard let milliseconds = timeout.numberValue?.int64Value, milliseconds > 0 else {
                throw HTTPFailure.badRequest("parameter `connection_timeout` must be an integer greater than 0")
            }
            connectionTimeout = .milliseconds(milliseconds)
        }
    }

    /// `filter` as `couch_replicator_filters:parse/1` reads it: `_doc_ids` and `_selector` name the built-in
    /// filters whose arguments are the fields parsed above; another name starting with `_` (`_view`, `_design`)
    /// is a built-in filter of the source's; anything else must be `ddocname/filtername`, a design document's
    /// function the source runs with `query_params` as its request's query.
    private mutating func parseFilter(_ filter: JSONValue, queryParameters: JSONValue?) throws {
        guard let name = filter.stringValue else { throw HTTPFailure.badRequest("parameter `filter` must be a string") }
        if name == "_doc_ids" || name == "_selector" { return }
        if !name.hasPrefix("_") {
            guard let slash = name.firstIndex(of: "/"), slash != name.startIndex, name.index(after: slash) != name.endIndex else {
                throw HTTPFailure.badRequest("Invalid filter. Must match `ddocname/filtername`.")
            }
        }
        var parameters: [String: String] = [:]
        if let queryParameters, queryParameters != .null {
            guard let object = queryParameters.objectValue else {
                throw HTTPFailure.badRequest("parameter `query_params` must be a JSON object")
            }
            // Sent to the source as URL query arguments: strings as they are, other values as their JSON text.
            for (key, value) in object.members { parameters[key] = value.stringValue ?? value.jsonString() }
        }
        self.filter = (name, parameters)
    }

    private static func flag(_ body: JSONObject, _ name: String) throws -> Bool {
        guard let value = body[name], value != .null else { return false }
        guard let flag = value.boolValue else { throw HTTPFailure.badRequest("parameter `\(name)` must be a boolean") }
        return flag
    }
}
