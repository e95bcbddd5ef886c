internal import CloudantCore
public import Foundation
internal import CipherVFS
internal import GRDB

/// A CouchDB-compatible document store in one SQLite file.
///
/// Documents are JSON objects with CouchDB revision trees: every write names the revision it edits, the
/// store mints the next one, keeps conflicts as branches and picks the same winner CouchDB would. Typed
/// `Codable` entities are stored as documents of a registered kind (see `add(_:)`).
///
/// ```swift
/// let store = try DocumentStore.open(name: "patients")          // ./cloudant-data/patients.sqlite
/// let created = try await store.put(["_id": "p1", "name": "Ada"])
/// let doc = try await store.document(id: "p1")                   // ["_id": "p1", "_rev": "1-…", "name": "Ada"]
/// ```
///
/// The store is `Sendable`: share one instance. SQLite runs in WAL mode with one writer and concurrent
/// readers; every write call is one transaction.
public final class DocumentStore: Sendable {
    /// The store's name (its database name for CouchDB).
    public let name: String
    /// The SQLite file.
    public let fileURL: URL
    /// How the store was opened.
    public let options: StoreOptions
    /// A stable identity for this store, used by replication ids.
    public let uuid: String

    let pool: DatabasePool
    /// Decides when the writer copies the log into the file (see ``LogCheckpointer``).
    let checkpointer: LogCheckpointer
    /// The connections ``readNow(_:_:)`` reads on (see ``ImmediateReaders`` for why not the pool's).
    let immediateReaders: ImmediateReaders
    let notifier = ChangeNotifier()
    let liveQueries = LiveQueryHub()
    let expiry = ExpiryState()
    let indexCache = IndexCatalogCache()
    let documentCounts = DocumentCountsCache()
    let lifecycle = StoreLifecycle()
    let writerGate = WriterGate()
    /// The threads async reads run on (see ``read(_:_:)``): as many as GRDB's pool has readers.
    let readThreads: BlockingJobs
    /// Where view indexes are brought up to date (see ``ViewMaintenance``).
    let viewMaintenance: ViewMaintenance
    /// The design documents' validation functions, as last read (see ``ValidationFunctionsCache``).
    let validationFunctions = ValidationFunctionsCache()
    /// The size a partition may grow to (``setMaxPartitionSize(_:)``).
    let partitionLimit = PartitionLimit()
    /// How bodies are compressed on disk and read back (see ``BodyCodec``).
    let bodyCodec: BodyCodec

    private init(
        name: String, fileURL: URL, options: StoreOptions, pool: DatabasePool, checkpointer: LogCheckpointer,
        uuid: String, bodyCodec: BodyCodec
    ) {
        self.bodyCodec = bodyCodec
        self.name = name
        self.fileURL = fileURL
        self.options = options
        self.pool = pool
        self.checkpointer = checkpointer
        viewMaintenance = ViewMaintenance(checkpointer: checkpointer)
        immediateReaders = ImmediateReaders(path: fileURL.path, configuration: pool.configuration)
        readThreads = BlockingJobs(name: "cloudant-reads", width: pool.configuration.maximumReaderCount)
        self.uuid = uuid
    }

    /// A store released without ``close()`` (as a command-line run ends) stops queueing checkpoints, closes
    /// its own read connections and folds the write-ahead log into the file before GRDB's pool goes
    /// (``foldLog()``): a store left with only its `.sqlite` file must hold everything.
    deinit {
        checkpointer.stop()
        try? immediateReaders.close()
        if !lifecycle.isClosed { foldLog() }
    }

    /// Opens (creating if needed) the store `name` in `directory`.
    ///
    /// Opening never scans documents, except once to fill an index a registered entity kind declares and
    /// the file does not have yet: it opens the file, applies pending migrations and reads one row.
    /// - Throws: `CloudantError` `.invalidInput` for a bad name, `.storeUnreadable` when the file cannot be
    ///   opened (the underlying SQLite error is attached).
    public static func open(
        name: String, in directory: StoreDirectory = StoreDirectory(), options: StoreOptions = StoreOptions()
    ) throws -> DocumentStore {
        let url = try directory.fileURL(forStore: name)
        return try open(name: name, fileURL: url, options: options)
    }

    /// Opens (creating if needed) a store at an explicit file location.
    public static func open(name: String, fileURL: URL, options: StoreOptions = StoreOptions()) throws -> DocumentStore {
        do {
            if !options.readOnly {
                try FileManager.default.createDirectory(
                    at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
                try StoreDirectory.removeStaleCompanions(of: fileURL)
            }
            try prepareEncryption(options.encryptionKey, at: fileURL)
            let encrypted = options.encryptionKey != nil
            var configuration = Configuration()
            configuration.readonly = options.readOnly
            configuration.foreignKeysEnabled = true
            configuration.busyMode = .timeout(10)
            configuration.label = name
            let bodyCodec = BodyCodec(compresses: options.compressesBodies && !options.readOnly)
            configuration.prepareDatabase { db in
                // An encrypted file: 4096-byte pages with room for each page's nonce and tag, temporary
                // tables in memory (a temporary file has no key), no memory map (pages are read decrypted).
                // First, before anything reads or writes a page.
                if encrypted, let connection = db.sqliteConnection {
                    try CipherVFS.prepare(connection: connection)
                    // Each page read from the file is decrypted; a page kept in SQLite's cache is not, so
                    // encrypted stores cache 32 MB per connection instead of SQLite's 2 MB (measured on the indexed-query benchmark).
                    try db.execute(sql: "PRAGMA cache_size = -32768")
                }
                // WAL (set by DatabasePool) with NORMAL sync: a commit survives a process crash
                // (kill -9); only an OS crash or power loss can lose the last commits.
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
                // Reads through a memory map instead of a read() per page: queries that jump from an
                // index entry to its document row touch pages all over the file (measured: page reads
                // were a tenth of an indexed query's time). Address space only; the OS shares the pages.
                if !encrypted { try db.execute(sql: "PRAGMA mmap_size = 1073741824") }
                if !encrypted && !db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -16384") }
                // A log that a bulk load grew (see `bulkLoading`) is cut back to 64 MB once a checkpoint has
                // copied it into the file, instead of keeping its largest size on disk until the store closes.
                if !db.configuration.readonly { try db.execute(sql: "PRAGMA journal_size_limit = 67108864") }
                try bodyCodec.register(on: db)
            }
            // The writer's commits decide when the log is copied into the file, always by the writer itself
            // (see LogCheckpointer); view maintenance turns checkpoints off on its own connection.
            let checkpointer = LogCheckpointer()
            if !options.readOnly {
                configuration.prepareDatabase { db in
                    if !db.configuration.readonly { checkpointer.install(on: db) }
                }
            }
            if FileManager.default.fileExists(atPath: fileURL.path) { try refuseNewerSchema(at: fileURL) }
            let pool = try DatabasePool(path: fileURL.path, configuration: configuration)
            let uuid = StoreOptions.randomHexID()
            let migrator = StoreSchema.migrator(uuid: uuid)
            if !options.readOnly {
                try migrator.migrate(pool)
                try CollatorVersion.remakeKeysIfChanged(in: pool)
                // A bulk load the process did not live to finish may have left the kind index out.
                if try !pool.read(DeferredKindIndex.exists) { try pool.write(DeferredKindIndex.restoreIfMissing) }
                if options.registry.kinds.contains(where: { !$0.indexes.isEmpty || !$0.projections.isEmpty }) {
                    try pool.write { db in
                        try Self.createDeclaredIndexes(options, in: db)
                        try ProjectionCatalog.declareRegistered(options.registry, in: db)
                    }
                }
            }
            let storedUUID = try pool.read { db in try StoreInfo.string(StoreSchema.StoreInfo.uuid, in: db) }
            // A read-only store may predate compressed bodies (and then has none to read). A damaged file
            // still opens (for `integrityCheck()`, and for what can be read): the dictionaries are then
            // read as bodies need them, and a body whose dictionary cannot be read is `storeUnreadable`.
            for dictionary in (try? pool.read(BodyDictionaryTable.latestByKindIfPresent)) ?? [] {
                bodyCodec.adopt(dictionary)
            }
            let store = DocumentStore(
                name: name, fileURL: fileURL, options: options, pool: pool, checkpointer: checkpointer,
                uuid: storedUUID ?? uuid, bodyCodec: bodyCodec)
            try store.immediateReaders.openFirst()
            checkpointer.setRunner { [weak store] in await store?.checkpointQueued() }
            // A read-only store may predate the expiry table; it enforces nothing anyway.
            if !options.readOnly {
                store.expiryCommitted(next: try pool.read { db in try ExpiryRecord.next(in: db) })
                // A key change a crash interrupted is finished or undone, then attachment files a crash left
                // unreferenced (or half-staged) go; see AttachmentFiles.
                let fileDigests = try pool.read { db in try AttachmentStorage.fileDigests(in: db) }
                try store.attachmentFiles.finishInterruptedKeyChange(keeping: fileDigests)
                store.attachmentFiles.sweep(keeping: fileDigests)
            }
            return store
        } catch let error as CloudantError {
            throw error.adding { $0.database = name }
        } catch {
            throw CloudantError(
                .storeUnreadable, "Could not open the store file; check the path and its permissions.",
                context: .init(database: name), underlying: error)
        }
    }

    /// Refuses a file with migrations this code does not know: a newer version wrote it, and reading or
    /// writing a schema we do not understand could corrupt it. Checked on a read-only connection before the
    /// store's own, so a refused file is left byte for byte as it was (not even switched to WAL).
    ///
    /// A file a crash left with an unrecovered WAL cannot be read read-only (SQLite must rebuild its `-shm`
    /// index first: "attempt to write a readonly database"); the check then reads it on a read-write
    /// connection, which recovers the log as any open would and writes nothing of its own.
    private static func refuseNewerSchema(at fileURL: URL) throws {
        let unknown: Set<String>
        do {
            unknown = try unknownMigrations(at: fileURL, readOnly: true)
        } catch let error as DatabaseError where [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode.primaryResultCode) {
            unknown = try unknownMigrations(at: fileURL, readOnly: false)
        }
        guard unknown.isEmpty else {
            throw CloudantError(
                .storeFromNewerVersion,
                "The store was written by a newer version of OTFCloudantStore (schema \(unknown.sorted().joined(separator: ", "))); "
                    + "open it with that version or newer. Nothing was changed.")
        }
    }

    /// The migrations applied to the file that this code does not know.
    private static func unknownMigrations(at fileURL: URL, readOnly: Bool) throws -> Set<String> {
        var configuration = Configuration()
        configuration.readonly = readOnly
        let queue = try DatabaseQueue(path: fileURL.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            try StoreSchema.migrator(uuid: "").appliedIdentifiers(db).subtracting(StoreSchema.migrationIdentifiers)
        }
    }

    /// The identifiers of the schema migrations applied to this file, in order.
    public func appliedMigrations() async throws -> [String] {
        try await read(.storeUnreadable) { db in try StoreSchema.migrator(uuid: "").appliedMigrations(db) }
    }

    // MARK: Transactions with typed errors

    /// Runs `body` in the write transaction, mapping SQLite errors to `code`; a `long` transaction runs on the
    /// writer gate's thread, never on the caller's (see ``WriterGate``).
    ///
    /// The closed check runs inside the transaction, on the serialized writer, so a write either commits
    /// before ``close()`` takes the writer or fails with the store's closed error: never after.
    func write<T: Sendable>(
        _ code: CloudantError.Code, long: Bool = false, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        do {
            return try await writerGate.run(long: long) {
                // A write sees what a read sees: a document that has expired is gone (purged first).
                try self.purgeExpiredIfDue()
                let (value, nextExpiry) = try self.writeNow { db in
                    try self.lifecycle.requireOpen(database: self.name)
                    return (try body(db), try ExpiryRecord.next(in: db))
                }
                self.expiryCommitted(next: nextExpiry)
                // Compression dictionaries are learnt after the write that made one due, in their own
                // transaction: the write has committed whatever training does.
                if self.bodyCodec.isTrainingDue { self.trainDueDictionaries() }
                return value
            }
        } catch {
            // A cancellation means the caller's task was cancelled: the transaction rolled back.
            throw try storeFailure(error, code, "The store could not complete the write; nothing was changed.")
        }
    }

    /// Runs `body` in the write transaction on the calling thread (``WriterGate`` decides which thread that
    /// is): GRDB's async hop to its writer queue and back cost more than the short transactions here.
    func writeNow<T>(_ body: (Database) throws -> T) throws -> T {
        let catalogue = indexCache.cachedSchemaVersion
        do {
            return try lifecycle.whileOpen(database: name) {
                try pool.writeWithoutTransaction { db in try db.inCachedTransaction(.immediate, body) }
            }
        } catch {
            // The transaction read the index catalogue after changing the schema (an index created, then a
            // failure): that version number will come back with other tables, so drop what was cached.
            if indexCache.cachedSchemaVersion != catalogue { indexCache.invalidate() }
            throw error
        }
    }

    /// Runs `body` on a reader on the calling thread, mapping SQLite errors to `code`: for short reads
    /// (an indexed query) the async hop to GRDB's reader queue and back costs more than the read itself.
    /// `body` must not suspend (see ``ImmediateReaders``).
    func readNow<T>(_ code: CloudantError.Code, _ body: (Database) throws -> T) throws -> T {
        do {
            try lifecycle.requireOpen(database: name)
            try purgeExpiredIfDue()
            return try immediateReaders.read(body)
        } catch {
            throw try storeFailure(error, code, "The store could not be read.")
        }
    }

    /// What a failed read or write of the store throws: the store's own errors naming this database, a
    /// cancellation as it is (the caller's task was cancelled, not the store), and anything else (SQLite's) as
    /// `code` with `message`, unless the store was closed meanwhile, which is said instead.
    func storeFailure(_ error: any Error, _ code: CloudantError.Code, _ message: String) throws -> any Error {
        switch error {
        case let error as CloudantError: return error.adding { $0.database = self.name }
        case is CancellationError: return error
        default:
            try lifecycle.requireOpen(database: name)
            return CloudantError(code, message, context: .init(database: name), underlying: error)
        }
    }

    /// Runs `body` on a reader, mapping SQLite errors to `code`.
    ///
    /// The read runs synchronously on one of the store's ``readThreads``, its task suspended meanwhile: GRDB's
    /// async read keeps its pool connection until the awaiting task runs again on the cooperative pool, so on a
    /// busy process (two cooperative threads on two cores, shared on Linux with every Dispatch concurrent
    /// queue) a store's readers could all be held by tasks waiting for a thread, and every read of that store
    /// waited with them. A synchronous read gives its connection back as soon as `body` returns.
    ///
    /// `inTransaction: false` runs `body` without a read transaction around it: for a single statement that
    /// may fail in a way that leaves the transaction unable to end (an integrity check of a damaged file).
    func read<T: Sendable>(
        _ code: CloudantError.Code, inTransaction: Bool = true, _ body: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        do {
            try lifecycle.requireOpen(database: name)
            try purgeExpiredIfDue()
            let pool = self.pool
            let lifecycle = self.lifecycle
            let name = self.name
            return try await readThreads.run {
                try lifecycle.whileOpen(database: name) { try inTransaction ? pool.read(body) : pool.unsafeRead(body) }
            }
        } catch {
            throw try storeFailure(error, code, "The store could not be read.")
        }
    }
}
