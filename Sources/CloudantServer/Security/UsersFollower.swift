internal import CloudantCore
internal import CloudantStore

/// Follows the changes of the authentication database (`_users` unless configured) and carries out what a user document's change means for the rest of the
/// server, as CouchDB's `couch_peruser` listener does:
/// - a password change (a new salt) or a deletion ends the user's cookie sessions;
/// - with ``PerUserDatabases`` on, a user gets a private database named after them, which names them as its
///   admin and only member; deleting the user deletes the database or removes them from its `_security`.
///
/// The endpoint calls ``catchUp()`` after every request that writes to `_users` (a document `PUT`,
/// `_bulk_docs`, a replicator's `new_edits=false` batch) before it answers, so a client sees the effect as
/// soon as its write returns; and once at start, which creates the databases of users that lack one.
///
/// It also keeps ``AuthDesignDocument`` in the authentication database as CouchDB's auth cache listener does
/// (`chttpd_auth_cache`): the listener starts on the configured database when the server starts, writing the
/// design document there when it lacks one; it stops when that database is deleted, and tries again every
/// ``listenerRetry`` (CouchDB's `send_after(5000, …)`), on the database configured then, until one exists.
/// So a `_users` deleted and created again is empty at first, as CouchDB's is (CouchDB's Mango suite counts
/// on it), and gets the design document a few seconds later. Configuring another database alone does not
/// move the listener (a client deletes and recreates `_users` to make CouchDB's move). A deleted database
/// stays deleted until a client creates it.
actor UsersFollower {
    private let registry: DatabaseRegistry
    private let database: @Sendable () -> String
    private let sessions: SessionRegistry
    private let perUser: PerUserDatabases?
    /// The last `_users` sequence carried out, in ``followedStore``.
    private var since: Int64 = 0
    /// The `_users` store `since` belongs to: when `_users` is deleted and created again, start over.
    private var followedStore: ObjectIdentifier?
    /// The database CouchDB's auth cache listener would be on; nil while it waits for one to exist.
    private var listening: String?
    /// Whether the listener has started once (the server's first catch-up starts it; afterwards only its
    /// retries do).
    private var started = false
    /// The retries running after the listener's database was deleted.
    private var retries: Task<Void, Never>?
    /// How long the listener waits before it tries again to start: CouchDB's auth cache waits 5 seconds.
    static let listenerRetry = Duration.seconds(5)

    init(registry: DatabaseRegistry, database: @escaping @Sendable () -> String, sessions: SessionRegistry, perUser: PerUserDatabases?) {
        self.registry = registry
        self.database = database
        self.sessions = sessions
        self.perUser = perUser
    }

    /// Carries out every `_users` change not yet seen.
    func catchUp() async {
        if !started {
            started = true
            await startListening()
        }
        guard let store = try? await registry.store(database()) else { return }
        if followedStore != ObjectIdentifier(store) {
            followedStore = ObjectIdentifier(store)
            since = 0
        }
        while true {
            guard let page = try? await store.changes(ChangesOptions(since: since, limit: 500, includeDocs: true))
            else { return }
            for change in page.results where change.id.hasPrefix(UsersDatabase.idPrefix) {
                await apply(change)
            }
            since = page.lastSeq
            if !page.hasMore || page.results.isEmpty { return }
        }
    }

    /// A database was created or deleted (the registry's events).
    func databaseEvent(_ event: DatabaseRegistry.Event, _ name: String) async {
        guard event == .deleted, name == listening else { return }
        listening = nil
        guard retries == nil else { return }
        // A timer, as CouchDB's: it holds the follower weakly, and ``stop()`` ends it with the server.
        retries = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.listenerRetry)
                guard !Task.isCancelled, let self, await self.retryListening() else { return }
            }
        }
    }

    /// One retry; whether to try again.
    private func retryListening() async -> Bool {
        await startListening()
        if listening != nil { retries = nil }
        return listening == nil
    }

    /// Ends the listener's retries (the server stops).
    func stop() {
        retries?.cancel()
        retries = nil
    }

    /// Starts the listener on the configured database once it exists, writing ``AuthDesignDocument`` there.
    private func startListening() async {
        guard listening == nil else { return }
        let name = database()
        guard let store = try? await registry.store(name) else { return }
        listening = name
        await AuthDesignDocument.ensure(in: store)
    }

    private func apply(_ change: Change) async {
        let name = String(change.id.dropFirst(UsersDatabase.idPrefix.count))
        guard !name.isEmpty else { return }
        if change.deleted {
            await sessions.revoke { $0.name == name }
            if let perUser { await removeDatabase(of: name, perUser) }
            return
        }
        let salt = change.doc?["salt"]?.stringValue
        await sessions.revoke { $0.name == name && $0.salt != salt }
        if let perUser { await ensureDatabase(of: name, perUser) }
    }

    /// Creates the user's database if it is missing and makes sure its `_security` names the user as an
    /// admin and a member (keeping whatever else an admin put there).
    private func ensureDatabase(of name: String, _ perUser: PerUserDatabases) async {
        let database = perUser.databaseName(forUser: name)
        guard DatabaseRegistry.isValidName(database) else { return }
        let store: DocumentStore
        if let existing = try? await registry.store(database) {
            store = existing
        } else if let created = try? await registry.create(database) {
            store = created
        } else if let raced = try? await registry.store(database) {
            store = raced
        } else {
            return
        }
        var security = (try? await store.securityObject())?.objectValue ?? [:]
        let updated = Self.adding(name, to: security)
        guard updated != security else { return }
        security = updated
        try? await store.setSecurityObject(.object(security))
    }

    private func removeDatabase(of name: String, _ perUser: PerUserDatabases) async {
        let database = perUser.databaseName(forUser: name)
        if perUser.deleteWithUser {
            try? await registry.delete(database)
            return
        }
        guard let store = try? await registry.store(database),
            let security = (try? await store.securityObject())?.objectValue
        else { return }
        try? await store.setSecurityObject(.object(Self.removing(name, from: security)))
    }

    /// `security` with `name` in `admins.names` and `members.names`.
    static func adding(_ name: String, to security: JSONObject) -> JSONObject {
        editingNames(of: security) { names in
            if !names.contains(name) { names.append(name) }
        }
    }

    /// `security` without `name` in `admins.names` and `members.names`.
    static func removing(_ name: String, from security: JSONObject) -> JSONObject {
        editingNames(of: security) { names in names.removeAll { $0 == name } }
    }

    private static func editingNames(of security: JSONObject, _ edit: (inout [String]) -> Void) -> JSONObject {
        var result = security
        for side in ["admins", "members"] {
            var principals = security[side]?.objectValue ?? [:]
            var names = (principals["names"]?.arrayValue ?? []).compactMap(\.stringValue)
            edit(&names)
            principals["names"] = .array(names.map(JSONValue.string))
            if principals["roles"] == nil { principals["roles"] = [] }
            result[side] = .object(principals)
        }
        return result
    }
}
