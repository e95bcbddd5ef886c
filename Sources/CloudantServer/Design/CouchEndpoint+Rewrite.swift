internal import CloudantCore
internal import CloudantStore
internal import HTTPTypes
internal import Hummingbird

extension CouchEndpoint {
    /// How many rewrites one request has gone through (CouchDB's `rewrite_limit`, 100).
    @TaskLocal static var rewrites = 0

    /// `/{db}/_design/{ddoc}/_rewrite/…`, as CouchDB 3.5's `chttpd_rewrite` serves it: the design document's
    /// `rewrites` function (or its list of rules) maps the request to another path of the database, which is
    /// then answered as if it had been requested; a function may answer directly with a `code`.
    func rewrite(
        _ request: CouchRequest, database: String, store: DocumentStore, ddoc: JSONObject, path: [String]
    ) async throws -> Response {
        guard Self.rewrites < 100 else { throw HTTPFailure.badRequest("Exceeded rewrite recursion limit") }
        let name = String((ddoc["_id"]?.stringValue ?? "").dropFirst("_design/".count))
        let prefix = "/" + URLEncoding.couchDB(database) + "/_design/" + URLEncoding.couchDB(name)
        switch ddoc["rewrites"] {
        case .string?:
            let runtime = try designRuntime(language: ddoc["language"]?.stringValue ?? "javascript")
            var requestObject = try await self.requestObject(request, store: store, database: database)
            for field in ["info", "form", "uuid", "id"] { requestObject.removeValue(forKey: field) }
            let answer = try runtime.callDesignFunction(ddoc, path: ["rewrites"], arguments: [.object(requestObject)], session: nil)
            guard case .array(let parts) = answer, parts.first == "ok", parts.count == 2 else {
                throw HTTPFailure(status: 404, error: "rewrite_error", reason: "Invalid path.")
            }
            // `couch_query_servers:rewrite/3`: an answer that is neither false nor an object is a bad rewrite.
            guard case .object(let rule) = parts[1] else { throw HTTPFailure(status: 500, error: "rewrite_error", reason: "bad rewrite") }
            try Self.checkRewrite(rule)
            if case .number(let code)? = rule["code"] {
                // `chttpd_rewrite:do_rewrite/2` answers with exactly the function's headers, and its body or,
                // without one, the request's own body (`rewrite_body/1`).
                let headers = (rule["headers"]?.objectValue?.members ?? []).map { ($0.key, $0.value.stringValue ?? $0.value.jsonString()) }
                let body = rule["body"].map { Array(($0.stringValue ?? $0.jsonString()).utf8) } ?? request.body
                return CouchResponse.exact(body, status: Int(code.int64Value ?? 200), headers: headers)
            }
            guard case .string(let target)? = rule["path"] else {
                throw HTTPFailure(status: 500, error: "rewrite_error", reason: "Rewrite result must produce a new path.")
            }
            var query = request.query.ordered
            if case .object(let given)? = rule["query"] { query = given.members.map { ($0.key, $0.value.stringValue ?? "") } }
            var rewritten = request
            if case .string(let method)? = rule["method"] { rewritten.method = .init(method) ?? request.method }
            if case .object(let headers)? = rule["headers"] {
                for (key, value) in headers.members {
                    if let field = HTTPField.Name(key) { rewritten.headers[field] = value.stringValue ?? "" }
                }
            }
            if case .string(let body)? = rule["body"] { rewritten.body = Array(body.utf8) }
            return try await dispatchRewritten(rewritten, path: Self.normalize(prefix + "/" + target), query: query)
        case .array(let rules)?:
            let parts = Array(path)
            let requestQuery = request.query.ordered
            let secure = nodeConfiguration.value("chttpd", "secure_rewrites") != "false"
            guard let (target, query) = try RewriteRules(rules, secure: secure).rewrite(method: request.method.rawValue, path: parts, query: requestQuery) else {
                throw HTTPFailure.notFound()
            }
            return try await dispatchRewritten(request, path: Self.normalize(prefix + "/" + target), query: query)
        default:
            throw HTTPFailure(status: 404, error: "rewrite_error", reason: "Invalid path.")
        }
    }

    /// Answers the request at its new path, counting the rewrite.
    private func dispatchRewritten(_ request: CouchRequest, path: String, query: [(String, String)]) async throws -> Response {
        let queryString = query.map { URLEncoding.query($0.0) + "=" + URLEncoding.query($0.1) }.joined(separator: "&")
        let target = path + (queryString.isEmpty ? "" : "?" + queryString)
        let (segments, parsed, invalid) = CouchRequest.parseTarget(target, plusIsSpace: nodeConfiguration.decodePlusToSpace)
        if let invalid { throw CouchRequest.invalidUTF8Failure(segments: segments, invalid: invalid, method: request.method) }
        var rewritten = request
        rewritten.segments = segments
        rewritten.query = parsed
        rewritten.rawTarget = target
        return try await Self.$rewrites.withValue(Self.rewrites + 1) { try await route(rewritten) }
    }

    /// A rewrite function's answer, as CouchDB checks it (`validate_rewrite_response`).
    private static func checkRewrite(_ rule: JSONObject) throws {
        func fail(_ reason: String) -> HTTPFailure { HTTPFailure(status: 500, error: "rewrite_error", reason: reason) }
        for (key, value) in rule.members {
            switch key {
            case "method": guard value.stringValue != nil else { throw fail("bad method") }
            case "path": guard value.stringValue != nil else { throw fail("bad path") }
            case "body": guard value.stringValue != nil else { throw fail("bad body") }
            case "headers", "query":
                guard case .object(let members) = value else { throw fail("bad \(key)") }
                for (name, member) in members.members where member.stringValue == nil {
                    throw fail("object key/value must be strings \(ErlangTerm.binary(name))=\(member.jsonString())")
                }
            case "code":
                guard let code = value.numberValue?.int64Value, (200..<600).contains(code) else { throw fail("bad code") }
            default: continue
            }
        }
    }

    /// `normalize_path`: `.` segments dropped and `..` taking away the segment before it.
    static func normalize(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/") {
            switch segment {
            case ".": continue
            case "..":
                if let last = segments.last, last != ".." { segments.removeLast() } else { segments.append(segment) }
            default: segments.append(segment)
            }
        }
        return "/" + segments.joined(separator: "/")
    }
}

/// A design document's list of rewrite rules (`{"from", "to", "method", "query", "formats"}`), matched in
/// order as CouchDB's `chttpd_rewrite` matches them: `:name` in `from` binds a path segment, `*` the rest;
/// `to` and the rule's `query` take the bindings (and the request's query parameters), and the query
/// parameters the rule does not set follow, `key`-like ones as JSON.
struct RewriteRules {
    private enum Token: Equatable {
        case literal(String)
        case variable(String)
        case all
    }

    private struct Rule {
        var method: String?
        var from: [Token]
        var to: [Token]
        var query: [(String, JSONValue)]
        var formats: [String: String]
    }

    private let rules: [Rule]

    /// - Parameter secure: `chttpd/secure_rewrites` (true unless set to false): a path of a rule may not climb
    ///   out of the database, so a third `..` in a `from` or `to` fails every rule, as CouchDB parses them all
    ///   before matching any.
    /// - Throws: ``HTTPFailure`` `500` for a rule without `to`, `500 insecure_rewrite_rule` for one that climbs
    ///   too far.
    init(_ rules: [JSONValue], secure: Bool = true) throws {
        self.rules = try rules.compactMap { value in
            guard case .object(let rule) = value else { return nil }
            guard case .string(let to)? = rule["to"] else {
                throw HTTPFailure(status: 500, error: "error", reason: "invalid_rewrite_target")
            }
            if secure, let from = rule["from"]?.stringValue { try Self.requireWithinDatabase(from) }
            if secure { try Self.requireWithinDatabase(to) }
            let from = rule["from"]?.stringValue.map(Self.tokens) ?? [.all]
            let formats = (rule["formats"]?.objectValue?.members ?? []).reduce(into: [String: String]()) {
                $0[$1.key] = $1.value.stringValue
            }
            return Rule(
                method: rule["method"]?.stringValue, from: from, to: Self.tokens(to),
                query: rule["query"]?.objectValue?.members.map { ($0.key, $0.value) } ?? [], formats: formats)
        }
    }

    /// `chttpd_rewrite:path_to_list/3`: two `..` reach the server's root from the design document; a third is
    /// refused.
    private static func requireWithinDatabase(_ path: String) throws {
        guard path.split(separator: "/").filter({ $0 == ".." }).count <= 2 else {
            throw HTTPFailure(status: 500, error: "insecure_rewrite_rule", reason: "too many ../.. segments")
        }
    }

    private static func tokens(_ path: String) -> [Token] {
        path.split(separator: "/").map { part in
            if part == "*" { return .all }
            if part.hasPrefix(":") { return .variable(String(part.dropFirst())) }
            return .literal(String(part))
        }
    }

    /// The new path (relative to the design document) and query, or nil when no rule matches.
    func rewrite(method: String, path: [String], query: [(String, String)]) throws -> (String, [(String, String)])? {
        let keyLike: Set<String> = ["key", "startkey", "start_key", "endkey", "end_key", "keys"]
        var requestBindings: [(String, JSONValue)] = []
        for (name, value) in query {
            if keyLike.contains(name) {
                guard let decoded = try? JSONValue(parsing: value) else { throw HTTPFailure.badRequest("invalid UTF-8 JSON") }
                requestBindings.append((name, decoded))
            } else {
                requestBindings.append((name, .string(value)))
            }
        }
        // A rule's `"method": "*"` matches every method (`make_rule` reads it as a binding that matches anything).
        for rule in rules where rule.method == nil || rule.method == "*" || rule.method == method {
            guard let (remaining, pathBindings) = Self.bind(rule.from, to: path) else { continue }
            let bindings = pathBindings + requestBindings
            var ruleQuery: [(String, JSONValue)] = []
            for (key, value) in rule.query { ruleQuery.append((key, Self.substitute(value, bindings: bindings, formats: rule.formats))) }
            // `try_bind_path/4`: the rule's query replaces the bindings of the same name, and a `to` variable
            // takes the first binding of its name.
            let kept = bindings.filter { binding in !ruleQuery.contains { $0.0 == binding.0 } }
            let final = kept + ruleQuery
            var target: [String] = []
            for token in rule.to {
                switch token {
                case .all:
                    target += remaining
                case .variable(let name):
                    try target.append(final.first { $0.0 == name }.map { try Self.iolist($0.1) } ?? "undefined")
                case .literal(let text):
                    target.append(text)
                }
                if token == .all { break }
            }
            // `maybe_encode_bindings/1` folds the bindings into a list in reverse: the rule's query in its
            // order, then the request's parameters last first, then the path's variables in path order; the
            // bindings of a `*` are left out. A key-like value is written as JSON, any other as the iolist it
            // must be.
            var parameters: [(String, String)] = []
            for (name, value) in ruleQuery + kept.reversed() where name != "*" {
                parameters.append((name, keyLike.contains(name) ? value.jsonString() : try Self.iolist(value)))
            }
            // Each part is URL-encoded before the parts are joined (`do_rewrite`'s `quote_plus`), so a bound value
            // with `/`, `?` or `%` stays one path part.
            return (target.map { URLEncoding.query($0, spaceAsPlus: true) }.joined(separator: "/"), parameters)
        }
        return nil
    }

    private static func bind(_ tokens: [Token], to parts: [String]) -> ([String], [(String, JSONValue)])? {
        var bindings: [(String, JSONValue)] = []
        var index = 0
        for (position, token) in tokens.enumerated() {
            if token == .all, position == tokens.count - 1 { return (Array(parts[index...]), bindings) }
            guard index < parts.count else { return nil }
            switch token {
            case .variable(let name): bindings.insert((name, .string(parts[index])), at: 0)
            case .literal(let text): guard text == parts[index] else { return nil }
            // `*` before the end of `from` binds one part, as a variable named `*` (`bind_path/3`).
            case .all: bindings.insert(("*", .string(parts[index])), at: 0)
            }
            index += 1
        }
        return index == parts.count ? ([], bindings) : nil
    }

    private static func substitute(_ value: JSONValue, bindings: [(String, JSONValue)], formats: [String: String]) -> JSONValue {
        func variable(_ text: String) -> JSONValue {
            let name = text == "*" ? "*" : String(text.dropFirst())
            let found = bindings.first { $0.0 == name }?.1 ?? .string(text)
            guard let format = formats[name], case .string(let raw) = found else { return found }
            switch format {
            case "int": return Int64(raw).map { .number(JSONNumber($0)) } ?? found
            case "bool": return ["true": .bool(true), "false": .bool(false)][raw.lowercased()] ?? found
            default: return found
            }
        }
        switch value {
        case .string(let text) where text == "*" || text.hasPrefix(":"): return variable(text)
        case .array(let elements):
            return .array(elements.map { element in
                if case .string(let text) = element, text.hasPrefix(":") { return variable(text) }
                return element
            })
        default: return value
        }
    }

    /// A bound value as `iolist_to_binary/1` reads it: a string, or an array of strings and bytes (joined).
    /// - Throws: ``HTTPFailure`` `500 unknown_error` "badarg" for anything else (a number, a `bool` a
    ///   format gave, an object), as CouchDB's rewrite fails on it.
    private static func iolist(_ value: JSONValue) throws -> String {
        func bytes(_ value: JSONValue) throws -> [UInt8] {
            switch value {
            case .string(let text): return Array(text.utf8)
            case .array(let elements):
                return try elements.flatMap { element -> [UInt8] in
                    if case .number(let number) = element, let byte = number.int64Value.flatMap(UInt8.init(exactly:)) { return [byte] }
                    return try bytes(element)
                }
            default: throw HTTPFailure(status: 500, error: "unknown_error", reason: "badarg")
            }
        }
        return String(decoding: try bytes(value), as: UTF8.self)
    }
}
