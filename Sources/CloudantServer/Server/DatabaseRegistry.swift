internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// The databases a server serves: one `DocumentStore` per SQLite file in the data folder, opened on
/// first use and kept open.
///
/// Opening, creating and deleting a database are ordered by one lock, so a database is never reopened
/// half-way through its deletion. A deletion closes the store first — its write in progress commits
/// before the file goes, any later write fails with `404 not_found` — and only then removes the files;
/// requests for that name wait until it is done and then see the database gone (or created again).
final class DatabaseRegistry: Sendable {
    /// CouchDB's system databases, allowed although they start with `_`.
    static let systemDatabases: Set<String> = ["_users", "_replicator"]

    /// Whether `name` is a system database as `couch_partition:validate_dbname/2` sees one: a system name, or
    /// a name whose last `/` part is `_users` or `_replicator`.
    static func isSystemDatabase(_ name: String) -> Bool {
        // A name without `/` is its own last part.
        systemDatabases.contains(name.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? name)
    }

    let directory: StoreDirectory
    /// The key every store is opened with (nil: plaintext stores).
    let encryptionKey: DatabaseKey?
    /// The most leaves a document may have (``ServerConfiguration/maxLeavesPerDocument``).
    let maxLeavesPerDocument: Int
    /// The id of a document written without one (the server's ``CouchUUIDs``).
    let makeDocumentID: @Sendable () -> String
    /// The `_security` object written into each database this registry creates
    /// (``NodeConfiguration/defaultSecurityObject``), read at each creation.
    let defaultSecurity: @Sendable () -> JSONValue

    private struct State {
        var open: [String: DocumentStore] = [:]
        /// Deletions in progress, by database name; each removes itself when done.
        var deleting: [String: Task<Void, Never>] = [:]
    }

    /// What a lookup under the lock found.
    private enum Lookup {
        case found(DocumentStore)
        case waitFor(Task<Void, Never>)
    }

    private let state = Locked(State())

    /// What runs design functions in every database opened (see ``ServerConfiguration/designFunctions``).
    let designFunctions: (any DesignFunctionRuntime)?

    /// A database event as `/_db_updates` names it.
    enum Event: Sendable, Equatable {
        case created, deleted
        /// The open database has had `commits` writes committed since it was opened (see
        /// ``CloudantStore/DocumentStore/commitsSinceOpen``); the listener keeps the count it has accounted for,
        /// so the same commits told twice are one update.
        case updated(commits: Int)
    }

    /// Told of every database event, however it came about (a request, a replication job, a user's database
    /// made for them): `created` and `deleted` before ``create(_:)`` and ``delete(_:)`` return (after the
    /// commits before them, see ``tellCommits()``), `updated` after writes to an open database commit.
    let events = Locked<(@Sendable (Event, String) async -> Void)?>(nil)

    /// The bound of each partition of the partitioned databases (`couchdb/max_partition_size`), set on every
    /// store as it opens and on the open ones when it changes.
    private let maxPartitionSize = Locked<Int?>(nil)

    /// Sets ``DocumentStore/setMaxPartitionSize(_:)`` on every database, open and to be opened.
    func setMaxPartitionSize(_ bytes: Int?) {
        maxPartitionSize.withLock { $0 = bytes }
        for store in state.withLock({ Array($0.open.values) }) { store.setMaxPartitionSize(bytes) }
    }

    init(
        directory: StoreDirectory, encryptionKey: DatabaseKey? = nil, designFunctions: (any DesignFunctionRuntime)? = nil,
        maxLeavesPerDocument: Int = StoreOptions.defaultMaxLeavesPerDocument,
        makeDocumentID: @escaping @Sendable () -> String = StoreOptions.randomHexID,
        defaultSecurity: @escaping @Sendable () -> JSONValue = { SecurityObject.adminOnly.json }
    ) {
        self.makeDocumentID = makeDocumentID
        self.defaultSecurity = defaultSecurity
        self.directory = directory
        self.encryptionKey = encryptionKey
        self.designFunctions = designFunctions
        self.maxLeavesPerDocument = maxLeavesPerDocument
    }

    /// Whether `name` follows CouchDB's rule `^[a-z][a-z0-9_$()+/-]*$` (or is a system database). Its length is
    /// a separate rule (``fitsFileName(_:)``), as in CouchDB.
    static func isValidName(_ name: String) -> Bool {
        if systemDatabases.contains(name) { return true }
        return (try? StoreDirectory.validate(storeName: name)) != nil
    }

    /// Whether `name` is short enough to be stored: no `/`-separated part longer than CouchDB's 238 bytes, and
    /// a file name (each `/` written `%2F`) that leaves room for the store's longest companion file's suffix
    /// within the 255 bytes a file name may have. CouchDB keeps each part as a folder and so accepts some longer
    /// names; here they are refused with CouchDB's `database_name_too_long` rather than failing to open.
    static func fitsFileName(_ name: String) -> Bool {
        let encodedLength = name.utf8.count + 2 * name.utf8.count { $0 == UInt8(ascii: "/") }
        return encodedLength <= 215 && name.split(separator: "/").allSatisfy { $0.utf8.count <= 238 }
    }

    /// `chttpd:error_info({error, {database_name_too_long, Name}})`.
    static func nameTooLong(_ name: String) -> HTTPFailure {
        HTTPFailure(status: 400, error: "database_name_too_long", reason: "At least one path segment of `\(name)` is too long.")
    }

    /// The 400 CouchDB answers for a bad name.
    static func illegalName(_ name: String) -> HTTPFailure {
        HTTPFailure(
            status: 400, error: "illegal_database_name",
            reason: "Name: '\(name)'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter.")
    }

    /// The file of database `name`; `/` is kept as `%2F`, so no name reaches outside the folder.
    func fileURL(_ name: String) throws -> URL {
        guard Self.isValidName(name) else { throw Self.illegalName(name) }
        guard Self.fitsFileName(name) else { throw Self.nameTooLong(name) }
        if Self.systemDatabases.contains(name) {
            return URL(fileURLWithPath: directory.path, isDirectory: true).appendingPathComponent(name + ".sqlite")
        }
        return try directory.fileURL(forStore: name)
    }

    /// Whether the database's file exists.
    private func fileExists(_ name: String) -> Bool {
        guard let url = try? fileURL(name) else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// The stores open now, by database name: those a task can be running in.
    func openStores() -> [(name: String, store: DocumentStore)] {
        state.withLock { state in state.open.map { (name: $0.key, store: $0.value) } }.sorted { $0.name < $1.name }
    }

    /// The open store of an existing database.
    /// - Throws: ``HTTPFailure`` `404 not_found` "Database does not exist." (also for an illegal name, as
    ///   CouchDB answers GET on one).
    func store(_ name: String) async throws -> DocumentStore {
        try await lookUp(name) { state in
            guard self.fileExists(name) else { throw HTTPFailure.databaseNotFound }
            return try self.open(name, in: &state)
        }
    }

    /// Creates a database, with ``defaultSecurity``'s `_security` object.
    /// - Throws: ``HTTPFailure`` `400 illegal_database_name` or `database_name_too_long`, `412 file_exists`.
    @discardableResult
    func create(_ name: String) async throws -> DocumentStore {
        guard Self.isValidName(name) else { throw Self.illegalName(name) }
        guard Self.fitsFileName(name) else { throw Self.nameTooLong(name) }
        let store = try await lookUp(name, whenOpen: { _ in throw Self.fileExists }) { state in
            guard !self.fileExists(name) else { throw Self.fileExists }
            return try self.open(name, in: &state)
        }
        // Until it is written, a request finds no stored object, which reads as admin-only: never more open
        // than the setting asks.
        try await writeDefaultSecurity(store)
        await tellCommits()
        await tell(.created, name)
        return store
    }

    /// Opens (creating when missing) a system database while the server starts, before any request can delete
    /// it. Afterwards a deleted system database stays deleted until a client creates it, as in CouchDB.
    /// - Returns: The store, and whether its file was created now (its `_security` object is then the
    ///   starting server's to write, see ``writeDefaultSecurity(_:)``).
    func openSystemAtStart(_ name: String) throws -> (store: DocumentStore, created: Bool) {
        try state.withLock { state in
            let created = !fileExists(name)
            return (try open(name, in: &state), created)
        }
    }

    /// Writes ``defaultSecurity``'s object into a database just created.
    func writeDefaultSecurity(_ store: DocumentStore) async throws {
        try await store.setSecurityObject(defaultSecurity())
    }

    /// Deletes a database: closes its store (the write in progress finishes, later ones fail with 404),
    /// then removes its files.
    /// - Throws: ``HTTPFailure`` `404 not_found` when it does not exist; `CloudantError` `.storeUnwritable`
    ///   when its connections or files could not be removed.
    func delete(_ name: String) async throws {
        while true {
            let step: (deletion: Task<Void, Never>, outcome: DeletionOutcome?) = try state.withLock { state in
                if let deletion = state.deleting[name] { return (deletion, nil) }
                guard Self.isValidName(name), state.open[name] != nil || fileExists(name) else {
                    throw HTTPFailure.databaseNotFound
                }
                let url = try fileURL(name)
                let store = state.open.removeValue(forKey: name)
                let outcome = DeletionOutcome()
                let deletion = Task.detached { [self] in
                    let failure = await Self.offloaded { Self.closeAndRemove(store, url: url, name: name) }
                    outcome.set(failure)
                    _ = self.state.withLock { $0.deleting.removeValue(forKey: name) }
                }
                state.deleting[name] = deletion
                return (deletion, outcome)
            }
            await step.deletion.value
            guard let outcome = step.outcome else { continue }  // someone else's deletion: look again
            if let failure = outcome.failure { throw failure }
            await tellCommits()
            await tell(.deleted, name)
            return
        }
    }

    /// Closes every open store once the server has stopped, so a stopped server keeps no connection or file open
    /// (a process that starts and stops many servers, as the tests do, would run out of descriptors).
    func closeAll() async {
        let stores = state.withLock { state in
            defer { state.open.removeAll() }
            return Array(state.open.values)
        }
        await Self.offloaded {
            for store in stores { try? store.close() }
        }
    }

    /// Every database, sorted, system databases included.
    func names() throws -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let system = Self.systemDatabases.filter { files.contains($0 + ".sqlite") }
        return (try directory.storeNames() + system).sorted()
    }

    // MARK: Under the lock

    private static let fileExists = HTTPFailure(
        status: 412, error: "file_exists", reason: "The database could not be created, the file already exists.")

    /// Finds the open store of `name` (or runs `whenOpen` on it), waits out a deletion in progress, or
    /// runs `whenClosed` under the lock.
    private func lookUp(
        _ name: String, whenOpen: (DocumentStore) throws -> DocumentStore = { $0 },
        whenClosed: (inout State) throws -> DocumentStore
    ) async throws -> DocumentStore {
        while true {
            let lookup: Lookup = try state.withLock { state in
                if let deletion = state.deleting[name] { return .waitFor(deletion) }
                if let open = state.open[name] { return .found(try whenOpen(open)) }
                return .found(try whenClosed(&state))
            }
            switch lookup {
            case .found(let store): return store
            case .waitFor(let deletion): await deletion.value
            }
        }
    }

    /// Opens the store of `name` and keeps it; called with the lock held.
    private func open(_ name: String, in state: inout State) throws -> DocumentStore {
        if let existing = state.open[name] { return existing }
        var options = StoreOptions()
        options.encryptionKey = encryptionKey
        options.designFunctions = designFunctions
        options.maxLeavesPerDocument = maxLeavesPerDocument
        options.makeDocumentID = makeDocumentID
        let store = try DocumentStore.open(name: name, fileURL: fileURL(name), options: options)
        store.setMaxPartitionSize(maxPartitionSize.withLock { $0 })
        state.open[name] = store
        watchCommits(of: store, name: name)
        return store
    }

    // MARK: Events

    private func tell(_ event: Event, _ name: String) async {
        guard let listener = events.withLock({ $0 }) else { return }
        await listener(event, name)
    }

    /// The commits of each open database so far: what a listener set now starts from, so writes made while the
    /// server started (its system databases' setup) are no update.
    func commitCounts() -> [String: Int] {
        state.withLock { $0.open.mapValues(\.commitsSinceOpen) }
    }

    /// Tells the commits of every open database, so the listener has accounted for each write committed before
    /// now: what `/_db_updates` does before it answers, so a client that wrote and then reads the feed sees it.
    func tellCommits() async {
        let open = state.withLock { $0.open }
        for (name, store) in open.sorted(by: { $0.key < $1.key }) where !store.isClosed {
            await tell(.updated(commits: store.commitsSinceOpen), name)
        }
    }

    /// Tells `updated` after commits to `store` while it is open (a wake-up may stand for several).
    private func watchCommits(of store: DocumentStore, name: String) {
        let commits = store.commits()
        Task { [weak self] in
            for await _ in commits {
                guard let self, !store.isClosed else { return }
                await self.tell(.updated(commits: store.commitsSinceOpen), name)
            }
        }
    }

    // MARK: Deletion

    /// Closes the store (waiting for its reads and its write in progress) before removing the files: an
    /// open SQLite connection deletes `-wal` and `-shm` by name when it closes, which would take a newly
    /// created database's files with it.
    private static func closeAndRemove(_ store: DocumentStore?, url: URL, name: String) -> CloudantError? {
        do {
            try store?.close()
        } catch let error as CloudantError {
            return error
        } catch {
            return CloudantError(.storeUnwritable, "Could not close the database.", context: .init(database: name), underlying: error)
        }
        do {
            try StoreDirectory.deleteFiles(of: url, database: name)
        } catch let error as CloudantError {
            return error
        } catch {
            return CloudantError(.storeUnwritable, "Could not delete the database.", context: .init(database: name), underlying: error)
        }
        return nil
    }

    /// Runs blocking work (closing waits for reads in progress, which are given back only when their tasks
    /// run again) on threads outside the cooperative pool: not a Dispatch queue, whose threads on Linux are
    /// the cooperative pool's (see ``BlockingJobs``).
    private static func offloaded<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await closing.run(work)
    }

    /// The threads that close and delete stores.
    private static let closing = BlockingJobs(name: "cloudant-closing", width: 4)
}

/// The result of one deletion, read by the request that started it.
private final class DeletionOutcome: Sendable {
    private let value = Locked<CloudantError?>(nil)

    var failure: CloudantError? { value.withLock { $0 } }

    func set(_ failure: CloudantError?) { value.withLock { $0 = failure } }
}
