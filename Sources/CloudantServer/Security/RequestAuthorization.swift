internal import HTTPTypes

/// What a request needs before its handler runs, by CouchDB's `chttpd_auth_request:authorize_request/1`:
/// its path decides whether anonymous users, any user, metrics readers or only admins get through. Handlers
/// then apply their own rules (a database's security object, per-document access), so this table is the
/// first gate, never the only one.
enum RequestAuthorization: Equatable {
    /// No requirement here (`/`, `/_up`, `/_uuids`, `/_session`, the dashboard).
    case open
    /// A user with credentials (`/_replicate`).
    case authenticatedUser
    /// A server admin (the `_role` `_admin`).
    case serverAdmin
    /// A server admin or a user with the `_metrics` role (`/_node/{node}/_stats`, `_system`, `_prometheus`).
    case metricsReader
    /// A member of the database (checked first, with its own answer) who also administers it (`_compact`,
    /// `_view_cleanup`).
    case databaseAdmin(String)
    /// A member of the database, which must exist (`db_authorization_check/1`): every other database path,
    /// so a missing database (`404`) or a user who is not a member (`401`/`403`) is answered before the
    /// handler looks at the method, the content type or the body. Handlers then check their own access.
    case databaseMember(String)

    /// The requirement of a request, as `authorize_request_int/1` matches its path.
    /// - Parameters:
    ///   - adminOnlyAllDatabases: `chttpd/admin_only_all_dbs` (true unless set to false).
    ///   - usersDatabase: the authentication database (`chttpd_auth/authentication_db`), guarded as `_users` is
    ///     (CouchDB's table names `_users` itself, which stays guarded when another database is configured).
    static func of(
        method: HTTPRequest.Method, segments: [String], adminOnlyAllDatabases: Bool, usersDatabase: String
    ) -> RequestAuthorization {
        guard let first = segments.first else { return .open }
        let second = segments.count > 1 ? segments[1] : nil
        let wholeDatabase = segments.count == 1 && (method == .put || method == .delete)
        if first == "favicon.ico" { return .open }
        if first == "_all_dbs" || first == "_dbs_info" { return adminOnlyAllDatabases ? .serverAdmin : .open }
        if first == "_replicator" || first == "_users" || first == usersDatabase {
            // Their document lists and feeds would show every job's credentials or every user's hash.
            if wholeDatabase || second == "_all_docs" || second == "_changes" { return .serverAdmin }
            return .databaseMember(first)
        }
        if first.hasPrefix("_") { return serverEndpoint(method: method, segments: segments) }
        if wholeDatabase { return .serverAdmin }
        switch (second, segments.count) {
        case ("_compact", _), ("_view_cleanup", 2): return .databaseAdmin(first)
        case ("_sync_shards", 2), ("_purge", 2), ("_purged_infos_limit", 2): return .serverAdmin
        default: return .databaseMember(first)
        }
    }

    /// `server_authorization_check/1`: the few server endpoints anyone may call; every other `/_…` path is
    /// for server admins.
    private static func serverEndpoint(method: HTTPRequest.Method, segments: [String]) -> RequestAuthorization {
        switch (segments[0], segments.count) {
        case ("_up", 1), ("_uuids", 1), ("_session", 1), ("_stats", 1), ("_active_tasks", 1): return .open
        case ("_replicate", 1): return .authenticatedUser
        case ("_utils", _) where method == .get || method == .head: return .open
        case ("_node", 3...) where ["_stats", "_system", "_prometheus"].contains(segments[2]): return .metricsReader
        default: return .serverAdmin
        }
    }
}
