internal import CloudantCore
internal import CloudantStore
internal import Crypto

/// The server's cookie sessions, so that one can be listed and revoked before it expires.
///
/// CouchDB's `AuthSession` cookies are stateless: a stolen cookie works until it times out, and the only way
/// to end it early is to change the password. Here every login creates a session record, named by the
/// SHA-256 of a random token the cookie carries; a cookie is accepted only while its record exists, so
/// revoking a session refuses its cookie on the very next request. Records hold the hash, never the token,
/// so reading them (they live in `_users`, admin-only, as `_local/_sessions`) gives nobody a usable cookie.
///
/// Lookups and revocations work on memory; each change is written through to the store in order, so sessions
/// survive a restart.
final class SessionRegistry: Sendable {
    /// One login session.
    struct Session: Sendable, Hashable {
        /// Hex SHA-256 of the cookie's token: the session's public id.
        var id: String
        /// The user's name.
        var name: String
        /// When the user logged in (seconds since 1970).
        var created: Int
        /// When the session last authenticated a request.
        var lastSeen: Int
        /// The client's address at login.
        var address: String?
        /// The client's `User-Agent` at login.
        var userAgent: String?
        /// The password salt at login: a password change makes a new salt, which ends the session.
        var salt: String

        var json: JSONValue {
            [
                "id": .string(id), "name": .string(name), "created": .number(JSONNumber(created)),
                "last_seen": .number(JSONNumber(lastSeen)), "address": address.map(JSONValue.string) ?? .null,
                "user_agent": userAgent.map(JSONValue.string) ?? .null, "salt": .string(salt),
            ]
        }

        init(
            id: String, name: String, created: Int, lastSeen: Int, address: String?, userAgent: String?, salt: String
        ) {
            self.id = id
            self.name = name
            self.created = created
            self.lastSeen = lastSeen
            self.address = address
            self.userAgent = userAgent
            self.salt = salt
        }

        init?(json: JSONValue) {
            guard let id = json["id"]?.stringValue, let name = json["name"]?.stringValue,
                let created = json["created"]?.numberValue?.int64Value, let salt = json["salt"]?.stringValue
            else { return nil }
            self.init(
                id: id, name: name, created: Int(created),
                lastSeen: Int(json["last_seen"]?.numberValue?.int64Value ?? created),
                address: json["address"]?.stringValue, userAgent: json["user_agent"]?.stringValue, salt: salt)
        }
    }

    /// The `_local` document of `_users` the sessions are kept in.
    static let documentID = "_local/_sessions"

    private let sessions = Locked<[String: Session]>([:])
    private let writer: SessionWriter

    /// - Parameter store: opens `_users` (looked up each time: it may have been deleted and created again).
    init(store: @escaping @Sendable () async throws -> DocumentStore) {
        writer = SessionWriter(store: store)
    }

    /// Reads the stored sessions (at start-up); sessions `isLive` rejects are dropped.
    func load(isLive: (Session) -> Bool) async {
        let stored = await writer.read().filter(isLive)
        sessions.withLock { state in
            for session in stored { state[session.id] = session }
        }
    }

    /// The id (public) of a cookie token.
    static func id(ofToken token: String) -> String {
        Hex.encode(Array(SHA256.hash(data: Array(token.utf8))))
    }

    /// Records a new session and returns it.
    func create(token: String, name: String, salt: String, now: Int, address: String?, userAgent: String?) async
        -> Session
    {
        let session = Session(
            id: Self.id(ofToken: token), name: name, created: now, lastSeen: now, address: address,
            userAgent: userAgent, salt: salt)
        sessions.withLock { $0[session.id] = session }
        await persist()
        return session
    }

    /// The session a cookie token names, marked as seen at `now`; `nil` when it was revoked or never existed.
    func touch(token: String, now: Int) -> Session? {
        let id = Self.id(ofToken: token)
        return sessions.withLock { state in
            guard var session = state[id] else { return nil }
            session.lastSeen = now
            state[id] = session
            return session
        }
    }

    /// Stores the sessions' `lastSeen` times (kept in memory between writes).
    func saveLastSeen() async {
        await persist()
    }

    /// Every session, or those of `name`, oldest first.
    func list(name: String? = nil) -> [Session] {
        sessions.withLock { Array($0.values) }
            .filter { name == nil || $0.name == name }
            .sorted { ($0.created, $0.id) < ($1.created, $1.id) }
    }

    /// The session with public id `id`.
    func session(id: String) -> Session? {
        sessions.withLock { $0[id] }
    }

    /// Removes the sessions `shouldRevoke` picks; returns how many.
    @discardableResult
    func revoke(where shouldRevoke: (Session) -> Bool) async -> Int {
        let count = sessions.withLock { state in
            let doomed = state.values.filter(shouldRevoke).map(\.id)
            for id in doomed { state.removeValue(forKey: id) }
            return doomed.count
        }
        if count > 0 { await persist() }
        return count
    }

    /// Writes the current sessions. The writer takes the snapshot itself, in order, so a later write never
    /// carries an older state than an earlier one.
    private func persist() async {
        await writer.write { [sessions] in sessions.withLock { Array($0.values) } }
    }
}

/// Serialises the writes of ``SessionRegistry`` to its `_local` document.
private actor SessionWriter {
    private let store: @Sendable () async throws -> DocumentStore

    init(store: @escaping @Sendable () async throws -> DocumentStore) {
        self.store = store
    }

    func read() async -> [SessionRegistry.Session] {
        guard let document = try? await store().localDocument(id: SessionRegistry.documentID),
            let list = document["sessions"]?.arrayValue
        else { return [] }
        return list.compactMap(SessionRegistry.Session.init(json:))
    }

    /// Writes `snapshot()`; a failure keeps the sessions in memory (they still work until a restart).
    func write(_ snapshot: @Sendable () -> [SessionRegistry.Session]) async {
        let sessions = snapshot().sorted { $0.id < $1.id }
        let body: JSONObject = ["sessions": .array(sessions.map(\.json))]
        _ = try? await store().putLocal(id: SessionRegistry.documentID, body: body, rev: nil, lastWriterWins: true)
    }
}
