internal import CloudantCore
internal import Foundation

/// The node's configuration as CouchDB's `/_node/{node}/_config` shows it: sections of string keys and
/// string values, read and written over HTTP by server admins.
///
/// The keys that name a setting of this server take effect at once and are kept in the data folder
/// (`.couch_config.json`), so they survive a restart: `couchdb/max_document_size`,
/// `chttpd/max_http_request_size`, `chttpd/require_valid_user`, `chttpd/enable_cors`, `cors/*`,
/// `couch_httpd_auth/timeout` (and `chttpd_auth/timeout`), `uuids/max_count`, `log/level`,
/// `query_server_config/query_limit` and `partition_query_limit`, and for the
/// replication jobs the server starts `replicator/connection_timeout`, `replicator/retries_per_request` and
/// `replicator/health_threshold`. Any other key is kept and answered as written, as CouchDB keeps keys it does
/// not know. Sections start as CouchDB 3.5's `default.ini` leaves them: its `[replicator]` is all comments, so
/// that section is empty until a key is set.
final class NodeConfiguration: Sendable {
    /// The file in the data folder that keeps what was set over HTTP.
    static let fileName = ".couch_config.json"

    /// Sections CouchDB refuses to change over HTTP (`couch_util:check_config_blacklist/1`).
    static let blacklistedSections: Set<String> = [
        "daemons", "external", "httpd_design_handlers", "httpd_db_handlers", "httpd_global_handlers",
        "native_query_servers", "os_daemons", "query_servers", "feature_flags",
    ]

    // `state` holds every section; `file` is where set values persist (nil: not persisted, tests).
    private let state: Locked<[String: [String: String]]>
    private let overrides: Locked<[String: [String: String?]]>
    /// `section/key` of every value set over HTTP or kept in the file, persisted or not (the defaults excluded).
    private let explicit: Locked<Set<String>>
    private let file: URL?

    /// The defaults a configuration starts from, then the values kept in `folder` over them.
    init(configuration: ServerConfiguration, folder: String?) {
        var sections: [String: [String: String]] = [
            "couchdb": [
                "max_document_size": "8000000", "max_document_id_length": "infinity", "uuid": "",
                "database_dir": configuration.directory.path, "single_node": "true",
            ],
            "chttpd": [
                "bind_address": configuration.host, "port": String(configuration.port),
                "max_http_request_size": String(configuration.maxRequestBodySize), "require_valid_user": "false",
                "enable_cors": "false", "changes_timeout": String(configuration.changesTimeout),
            ],
            "chttpd_auth": ["timeout": String(configuration.sessionTimeout), "iterations": String(configuration.passwordIterations)],
            "couch_httpd_auth": ["timeout": String(configuration.sessionTimeout)],
            "cors": ["origins": "", "credentials": "false", "headers": "", "methods": "", "max_age": "600"],
            "uuids": ["algorithm": "sequential", "max_count": "1000"],
            "log": ["level": "info"],
            "cluster": ["n": "1", "q": "1"],
            "attachments": ["compression_level": "8", "compressible_types": "text/*, application/javascript, application/json, application/xml"],
        ]
        var kept: [String: [String: String?]] = [:]
        file = folder.map { URL(fileURLWithPath: $0, isDirectory: true).appendingPathComponent(Self.fileName) }
        if let file, let data = try? Data(contentsOf: file), case .object(let saved)? = try? JSONValue(parsing: data) {
            for (section, members) in saved.members {
                guard case .object(let keys) = members else { continue }
                for (key, value) in keys.members {
                    switch value {
                    case .string(let text):
                        sections[section, default: [:]][key] = text
                        kept[section, default: [:]][key] = text
                    case .null:
                        sections[section]?[key] = nil
                        kept[section, default: [:]][key] = .some(nil)
                    default: continue
                    }
                }
            }
        }
        state = Locked(sections)
        overrides = Locked(kept)
        explicit = Locked(Set(kept.flatMap { section, keys in keys.compactMap { $0.value == nil ? nil : section + "/" + $0.key } }))
    }

    /// Every section.
    func all() -> [String: [String: String]] { state.withLock { $0 } }

    /// One section's keys (empty for an unknown section, as CouchDB answers `{}`).
    func section(_ name: String) -> [String: String] { state.withLock { $0[name] ?? [:] } }

    /// One value, or nil.
    func value(_ section: String, _ key: String) -> String? { state.withLock { $0[section]?[key] } }

    /// Sets a value and answers the one it replaces (`""` when there was none); `persist` keeps it in the
    /// data folder.
    /// - Throws: ``HTTPFailure`` `400` when the value is not valid for a setting of this server.
    @discardableResult
    func set(_ section: String, _ key: String, to value: String, persist: Bool = true) throws -> String {
        try Self.validate(section, key, value)
        let old = state.withLock { sections -> String in
            let old = sections[section]?[key] ?? ""
            sections[section, default: [:]][key] = value
            return old
        }
        _ = explicit.withLock { $0.insert(section + "/" + key) }
        if persist { try save(section, key, value) }
        return old
    }

    /// Removes a value and answers it; nil when there was none.
    func delete(_ section: String, _ key: String, persist: Bool = true) throws -> String? {
        let old = state.withLock { sections in sections[section]?.removeValue(forKey: key) }
        _ = explicit.withLock { $0.remove(section + "/" + key) }
        if old != nil, persist { try save(section, key, nil) }
        return old
    }

    private func save(_ section: String, _ key: String, _ value: String?) throws {
        guard let file else { return }
        let snapshot = overrides.withLock { kept -> [String: [String: String?]] in
            kept[section, default: [:]][key] = .some(value)
            return kept
        }
        let json = JSONValue.object(
            JSONObject(
                snapshot.sorted { $0.key < $1.key }.map { section, keys in
                    (section, .object(JSONObject(keys.sorted { $0.key < $1.key }.map { ($0.key, $0.value.map(JSONValue.string) ?? .null) })))
                }))
        do {
            try json.jsonData().write(to: file, options: .atomic)
        } catch {
            throw HTTPFailure(status: 500, error: "file_error", reason: "Could not write the configuration file.")
        }
    }

    /// Refuses what `config:validate_config_update/3` refuses (a section or key with `[`, `]` or a character that
    /// is not printable, a value with one that is not: a line break would start a line of its own in the ini
    /// file), then values the server could not apply.
    private static func validate(_ section: String, _ key: String, _ value: String) throws {
        func printable(_ text: String) -> Bool {
            text.unicodeScalars.allSatisfy { $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value)) }
        }
        func bracketed(_ text: String) -> Bool { text.contains("[") || text.contains("]") }
        guard printable(section), !bracketed(section) else { throw HTTPFailure.badRequest("Invalid configuration section") }
        guard printable(key), !bracketed(key) else { throw HTTPFailure.badRequest("Invalid configuration key") }
        guard printable(value) else { throw HTTPFailure.badRequest("Invalid configuration value") }
        func positiveInteger() throws {
            guard let number = Int(value), number > 0 else {
                throw HTTPFailure.badRequest("The value of \(section)/\(key) must be a positive integer.")
            }
        }
        func boolean() throws {
            guard value == "true" || value == "false" else {
                throw HTTPFailure.badRequest("The value of \(section)/\(key) must be true or false.")
            }
        }
        switch (section, key) {
        case ("couchdb", "max_document_size"), ("chttpd", "max_http_request_size"), ("chttpd_auth", "timeout"),
            ("couch_httpd_auth", "timeout"), ("uuids", "max_count"), ("cors", "max_age"):
            try positiveInteger()
        case ("chttpd_auth", "authentication_db"), ("couch_httpd_auth", "authentication_db"):
            guard DatabaseRegistry.isValidName(value) else {
                throw HTTPFailure.badRequest("The value of \(section)/\(key) must be a database name.")
            }
        case ("couchdb", "max_partition_size"):
            guard let number = Int(value), number >= 0 else {
                throw HTTPFailure.badRequest("The value of \(section)/\(key) must be a non-negative integer.")
            }
        case ("couchdb", "default_security"):
            guard ["admin_only", "admin_local", "everyone"].contains(value) else {
                throw HTTPFailure.badRequest("The value of \(section)/\(key) must be admin_only, admin_local or everyone.")
            }
        case ("chttpd_auth_lockout", "threshold"), ("chttpd_auth_lockout", "max_lifetime"):
            try positiveInteger()
        case ("chttpd_auth", "iterations"), ("couch_httpd_auth", "iterations"):
            try positiveInteger()
        case ("chttpd_auth", "pbkdf2_prf"), ("couch_httpd_auth", "pbkdf2_prf"):
            guard PasswordHasher.keyLengths[value] != nil else {
                throw HTTPFailure.badRequest(
                    "The value of \(section)/\(key) must be one of " + PasswordHasher.keyLengths.keys.sorted().joined(separator: ", ") + ".")
            }
        case ("chttpd", "require_valid_user"), ("chttpd", "require_valid_user_except_for_up"), ("chttpd", "admin_only_all_dbs"),
            ("chttpd", "enable_cors"), ("cors", "credentials"), ("chttpd", "decode_plus_to_space"), ("chttpd", "allow_jsonp"),
            ("chttpd", "secure_rewrites"), ("chttpd_auth", "upgrade_hash_on_auth"):
            try boolean()
        case ("replicator", "connection_timeout"):
            try positiveInteger()
        case ("replicator", "retries_per_request"), ("replicator", "health_threshold"):
            guard let number = Int(value), number >= 0 else {
                throw HTTPFailure.badRequest("The value of \(section)/\(key) must be a non-negative integer.")
            }
        case ("query_server_config", "query_limit"), ("query_server_config", "partition_query_limit"):
            // CouchDB takes any text here and fails every later query on one that is not a number.
            guard value == "infinity" || (Int(value).map { $0 >= 0 } ?? false) else {
                throw HTTPFailure.badRequest("The value of \(section)/\(key) must be infinity or a non-negative integer.")
            }
        case ("uuids", "algorithm"):
            // CouchDB takes any name here and then fails every request that needs an id.
            guard CouchUUIDs.algorithms.contains(value) else {
                throw HTTPFailure.badRequest("Unknown uuid algorithm: \(value). Use one of random, sequential, utc_random, utc_id.")
            }
        case ("log", "level"):
            let levels = ["debug", "info", "notice", "warning", "warn", "error", "err", "critical", "crit", "alert", "emergency", "emerg", "none"]
            guard levels.contains(value) else { throw HTTPFailure.badRequest("Invalid log level: \(value)") }
        default: break
        }
    }

    // MARK: Settings of this server

    private func integer(_ section: String, _ key: String, default fallback: Int) -> Int {
        value(section, key).flatMap { Int($0) } ?? fallback
    }

    /// `couchdb/max_document_size`: the largest document body accepted, in bytes of its JSON.
    var maxDocumentSize: Int { integer("couchdb", "max_document_size", default: 8_000_000) }

    /// `couchdb/max_partition_size`: the bytes of document JSON a partition of a partitioned database may hold
    /// before writes that grow it are refused (CouchDB's default 10 GiB; 0 bounds nothing).
    var maxPartitionSize: Int { integer("couchdb", "max_partition_size", default: 10_737_418_240) }

    /// `couchdb/default_security`: the `_security` object a database gets when it is created. `admin_only` (the
    /// default, as in CouchDB 3) admits server admins only; `everyone` and `admin_local` (which CouchDB gives its
    /// clustered databases, the only kind served here) write `{}`, which admits every user. A database keeps
    /// the object it was created with when the setting changes later, as in CouchDB (`couch_db_updater`).
    var defaultSecurityObject: JSONValue {
        switch value("couchdb", "default_security") {
        case "everyone", "admin_local": [:]
        default: SecurityObject.adminOnly.json
        }
    }

    /// `chttpd/max_http_request_size`: the largest request body accepted.
    var maxRequestBodySize: Int { integer("chttpd", "max_http_request_size", default: 64 * 1024 * 1024) }

    /// `chttpd/require_valid_user`: whether every request but a login needs credentials, `/_up` included.
    var requireValidUser: Bool { value("chttpd", "require_valid_user") == "true" }

    /// `chttpd/require_valid_user_except_for_up`: the same, with `/_up` left open for health checks.
    var requireValidUserExceptForUp: Bool { value("chttpd", "require_valid_user_except_for_up") == "true" }

    /// Settles, once per data folder, whether anonymous requests reach CouchDB's per-database rules.
    ///
    /// A folder a server has not served before starts as CouchDB does (`require_valid_user = false`: open
    /// databases, those whose `members` name nobody, serve anonymous clients), and that is written down. A folder
    /// served before by a version that refused every anonymous request keeps refusing them:
    /// `require_valid_user_except_for_up = true` is written, which a server admin may turn off over `_config`.
    /// Nothing is written once either key has been kept, or when the configuration is not persisted.
    /// - Returns: whether the folder was kept closed to anonymous requests.
    @discardableResult
    func settleAnonymousAccess(servedBefore: Bool) throws -> Bool {
        let decided = overrides.withLock { kept in
            kept["chttpd"]?["require_valid_user"] != nil || kept["chttpd"]?["require_valid_user_except_for_up"] != nil
        }
        guard file != nil, !decided else { return false }
        if servedBefore {
            try set("chttpd", "require_valid_user_except_for_up", to: "true")
        } else {
            try set("chttpd", "require_valid_user", to: "false")
        }
        return servedBefore
    }

    /// The headers a proxy names the client's host and scheme in (`chttpd/x_forwarded_*`).
    var forwardedHeaders: ForwardedHeaders {
        let chttpd = section("chttpd")
        var names = ForwardedHeaders()
        names.host = chttpd["x_forwarded_host"] ?? names.host
        names.ssl = chttpd["x_forwarded_ssl"] ?? names.ssl
        names.proto = chttpd["x_forwarded_proto"] ?? names.proto
        return names
    }

    /// Whether a `+` in a request's path is a space (`chttpd/decode_plus_to_space`, CouchDB's default true).
    var decodePlusToSpace: Bool { value("chttpd", "decode_plus_to_space") != "false" }

    /// The session timeout in seconds: `chttpd_auth/timeout`, or `couch_httpd_auth/timeout` where only that
    /// one was set (CouchDB 3 reads the first, falling back to the second).
    var sessionTimeout: Int {
        authentication("timeout").flatMap { Int($0) } ?? 600
    }

    /// A `chttpd_auth` setting, or the legacy `couch_httpd_auth` one where only that was set, as CouchDB's
    /// `chttpd_util:get_chttpd_auth_config/2` reads it.
    private func authentication(_ key: String) -> String? {
        let set = explicit.withLock { $0 }
        if !set.contains("chttpd_auth/" + key), set.contains("couch_httpd_auth/" + key) { return value("couch_httpd_auth", key) }
        return value("chttpd_auth", key)
    }

    /// `chttpd_auth/public_fields`: the members of a user document other users may read (comma-separated).
    var publicUserFields: Set<String> {
        Set((authentication("public_fields") ?? "").split(separator: ",").map { $0.trimmingSpaces }.filter { !$0.isEmpty })
    }

    /// `chttpd_auth/iterations`: the PBKDF2 iterations of password hashes made from now on (user documents
    /// that set a `password`, admins set over HTTP).
    var passwordIterations: Int { authentication("iterations").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 600_000 }

    /// How user documents' passwords are hashed and checked: `chttpd_auth` `iterations`, `pbkdf2_prf` and
    /// `password_regexp` (``PasswordRequirements``).
    var passwordSettings: UsersDatabase.PasswordSettings {
        UsersDatabase.PasswordSettings(iterations: passwordIterations, prf: passwordPRF, requirements: authentication("password_regexp"))
    }

    /// `chttpd_auth/pbkdf2_prf`: the PRF of password hashes made from now on (CouchDB's default `sha256`).
    var passwordPRF: String { authentication("pbkdf2_prf").flatMap { PasswordHasher.keyLengths[$0] == nil ? nil : $0 } ?? "sha256" }

    /// `chttpd_auth/authentication_db`: the database whose user documents log in (CouchDB's default `_users`).
    /// Its documents get the `_users` rules (passwords hashed on write, only admins and the user themselves
    /// read them) wherever it is named.
    var authenticationDatabase: String { authentication("authentication_db").flatMap { $0.isEmpty ? nil : $0 } ?? UsersDatabase.name }

    /// `chttpd_auth_lockout/mode`, `threshold` and `max_lifetime` (milliseconds), as `couch_auth_lockout` reads
    /// them: an unknown mode is `off`.
    var authLockout: AuthLockout.Settings {
        let lockout = section("chttpd_auth_lockout")
        var settings = AuthLockout.Settings()
        if let mode = lockout["mode"] { settings.mode = AuthLockout.Mode(rawValue: mode) ?? .off }
        if let threshold = lockout["threshold"].flatMap({ Int($0) }) { settings.threshold = threshold }
        if let milliseconds = lockout["max_lifetime"].flatMap({ Int($0) }), milliseconds > 0 {
            settings.lifetime = Double(milliseconds) / 1000
        }
        return settings
    }

    /// `chttpd/authentication_handlers`, in order: CouchDB's default is the cookie, then basic auth; `jwt` and
    /// `proxy` are read only when named. Handlers this server does not have are skipped.
    var authenticationHandlers: [AuthenticationHandler] {
        guard let text = value("chttpd", "authentication_handlers") else { return AuthenticationHandler.defaults }
        var handlers: [AuthenticationHandler] = []
        var rest = Substring(text)
        while let range = rest.range(of: "_authentication_handler") {
            let name = rest[..<range.lowerBound].reversed().prefix { $0.isLetter || $0 == "_" }.reversed()
            if let handler = AuthenticationHandler(rawValue: String(name)), !handlers.contains(handler) { handlers.append(handler) }
            rest = rest[range.upperBound...]
        }
        return handlers.isEmpty ? AuthenticationHandler.defaults : handlers
    }

    /// The `jwt_auth` and `jwt_keys` sections.
    var jsonWebTokenSettings: JSONWebToken.Settings {
        let jwt = section("jwt_auth")
        return JSONWebToken.Settings(
            requiredClaims: jwt["required_claims"] ?? "exp", keys: section("jwt_keys"), rolesClaimName: jwt["roles_claim_name"],
            rolesClaimPath: jwt["roles_claim_path"])
    }

    /// The `chttpd_auth` settings of proxy authentication.
    var proxySettings: ProxyAuthentication.Settings {
        var settings = ProxyAuthentication.Settings()
        settings.userNameHeader = authentication("x_auth_username") ?? settings.userNameHeader
        settings.rolesHeader = authentication("x_auth_roles") ?? settings.rolesHeader
        settings.tokenHeader = authentication("x_auth_token") ?? settings.tokenHeader
        if authentication("proxy_use_secret") == "true" { settings.secret = authentication("secret") }
        if let algorithms = authentication("hash_algorithms") {
            settings.hashAlgorithms = algorithms.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        return settings
    }

    /// The server admins kept in the `admins` section (``AdminPasswords``): name and stored value.
    var admins: [String: String] { section("admins") }

    /// Hashes the admins whose value is clear text (written into the configuration file by hand), keeping the
    /// hash in the file, as CouchDB hashes such admins when it starts.
    func hashClearAdminPasswords() throws {
        for (name, value) in admins where !AdminPasswords.isHashed(value) {
            let hash = try PasswordHasher.hash(value, iterations: passwordIterations, prf: passwordPRF)
            try set("admins", name, to: AdminPasswords.value(of: hash))
        }
    }

    /// `query_server_config/query_limit` and `partition_query_limit`: the most rows a view or `_all_docs`
    /// query may ask for, and the limit of one that asks for none (`infinity` by default).
    var queryLimits: QueryLimits {
        func ceiling(_ key: String) -> Int {
            value("query_server_config", key).flatMap { Int($0) }.map { min($0, ViewQuery.maximumLimit) } ?? ViewQuery.maximumLimit
        }
        return QueryLimits(query: ceiling("query_limit"), partitionQuery: ceiling("partition_query_limit"))
    }

    /// `uuids/max_count`: the most uuids one `/_uuids` request may ask for.
    var maxUUIDCount: Int { integer("uuids", "max_count", default: 1000) }

    /// `uuids/algorithm` (CouchDB's default `sequential`) and `uuids/utc_id_suffix`, as ``CouchUUIDs`` reads them.
    var uuidAlgorithm: (name: String, utcIDSuffix: String) {
        (value("uuids", "algorithm") ?? "sequential", value("uuids", "utc_id_suffix") ?? "")
    }

    /// The replication jobs' settings: `base` (the server's own) with what the `replicator` section sets, as
    /// couch_replicator reads it for each job: `connection_timeout` in milliseconds, `retries_per_request`,
    /// `health_threshold` in seconds.
    func replicatorSettings(over base: ReplicatorSettings) -> ReplicatorSettings {
        var settings = base
        let replicator = section("replicator")
        if let milliseconds = replicator["connection_timeout"].flatMap({ Int($0) }), milliseconds > 0 {
            settings.connectionTimeout = .milliseconds(milliseconds)
        }
        if let retries = replicator["retries_per_request"].flatMap({ Int($0) }), retries >= 0 {
            settings.retriesPerRequest = retries
        }
        if let seconds = replicator["health_threshold"].flatMap({ Int($0) }), seconds >= 0 {
            settings.healthThreshold = .seconds(seconds)
        }
        return settings
    }

    /// CORS as `chttpd/enable_cors` and the `cors` section set it.
    var cors: CORSPolicy? {
        guard value("chttpd", "enable_cors") == "true" else { return nil }
        let cors = section("cors")
        func list(_ key: String) -> [String] {
            (cors[key] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        return CORSPolicy(
            origins: list("origins"), credentials: cors["credentials"] == "true", headers: list("headers"),
            methods: list("methods"), maxAge: cors["max_age"].flatMap { Int($0) } ?? 600)
    }
}

/// An authentication handler `chttpd/authentication_handlers` can name (`{chttpd_auth, NAME_authentication_handler}`).
enum AuthenticationHandler: String, Sendable {
    case jwt, proxy, cookie
    /// Basic auth (CouchDB's `default_authentication_handler`).
    case basic = "default"

    static let defaults: [AuthenticationHandler] = [.cookie, .basic]
}
