public import CloudantCore
public import CloudantStore
public import Dispatch
internal import Foundation

/// OTFCloudantStore's store class, for code written against the original: the same initializer, the same
/// `add`/`get`/`update`/`delete` with `callbackQueue` and `Result<…, OTFCloudantError>`, the same query
/// builder, over a `DocumentStore`.
///
/// ```swift
/// let store = try OTFCloudantStore(storeName: "local_db")   // ~/.local/share/cloudant-sync-datastore
/// store.add([contact]) { result in
///     if case .failure(.addFailed(let reason)) = result { print(reason) }
/// }
/// store.collection(name: "OCKContact")
///     .where(.simpleComponent("title", .equal, "Family Practice Doctor"), .and,
///            .simpleComponent("effectiveDate", .greaterThan, "2020-11-27T23:00:00Z"))
///     .get { (result: Result<[Contact], OTFCloudantError>) in … }
/// ```
///
/// What is kept from the original: the names, the call shapes, the error cases, one document per entity
/// with the Swift type's name in `entityType` (types no plugin registered are accepted, as the original
/// accepted any `Codable` type). What is better: a batch is one transaction (the original wrote item by
/// item); a completion is called exactly once, on the queue given (the original called back twice on a
/// partial failure, and always on the main queue); `revId` is the document's `_rev`, never a copy in the
/// body; queries sort without an index and have no hidden limit of 30.
///
/// The CareKit names (`addPatients`, `fetchTasks(query:)`, …) come with the Care flavour, and
/// `collection(healthKitSampleType:)`, `getSamples` and `OTFHealthKitSynchronizer` with the Health flavour.
/// `documentStore` is the whole native API when the original's is not enough.
public final class OTFCloudantStore: Equatable, Sendable {
    /// The store's name, as given.
    public let storeName: String
    /// The folder holding the store's file (`<directory>/<storeName>.sqlite`).
    public let directory: String
    /// The store underneath: documents, revisions, attachments, Mango queries, changes, replication.
    public let documentStore: DocumentStore
    /// The longest a call may take before it fails with `OTFCloudantError.timedOut(reason:)`; `nil` (the
    /// default) waits as long as the work takes. Applies to every call of the drop-in API, local and remote.
    public let timeout: Duration?

    private let companions = CompanionTable()

    /// The original's name for ``documentStore`` (it exposed its `CDTDatastore` as `dataStore`).
    public var dataStore: DocumentStore { documentStore }

    /// Where stores open when no directory is given: `$XDG_DATA_HOME/cloudant-sync-datastore`, or
    /// `~/.local/share/cloudant-sync-datastore` (Linux's place for an app's data, as the original used
    /// `Documents/cloudant-sync-datastore` on iOS), or `./cloudant-sync-datastore` when there is no home.
    public static var defaultDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        let folder = "cloudant-sync-datastore"
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return URL(fileURLWithPath: dataHome).appendingPathComponent(folder).path
        }
        if let home = environment["HOME"], !home.isEmpty {
            return URL(fileURLWithPath: home).appendingPathComponent(".local/share/\(folder)").path
        }
        return folder
    }

    /// Opens (creating if needed) the store `storeName` in ``defaultDirectory``, as the original's
    /// `OTFCloudantStore(storeName:)`.
    ///
    /// - Throws: `OTFCloudantError.invalidValue(reason:)` for a name CouchDB would refuse (lowercase letters
    ///   first, then `a-z 0-9 _ $ ( ) + - /`), so every store can be replicated to a database of the same
    ///   name; `OTFCloudantError.fetchFailed(reason:)` when the file cannot be opened.
    public convenience init(storeName: String) throws(OTFCloudantError) {
        try self.init(storeName: storeName, directory: Self.defaultDirectory)
    }

    /// Opens (creating if needed) the store `storeName` in `directory`.
    ///
    /// - Parameters:
    ///   - storeName: The store's name; its file is `<directory>/<storeName>.sqlite`.
    ///   - directory: The folder; created when missing.
    ///   - plugins: Entity plugins whose kinds and indexes the store has from the start (`CarePlugin()`,
    ///     `HealthPlugin()`, your own). Without them the Care and Health calls still work: they create the
    ///     indexes they need on first use.
    ///   - timeout: See ``timeout``.
    /// - Throws: As ``init(storeName:)``.
    public init(
        storeName: String, directory: String, plugins: [any EntityPlugin] = [], timeout: Duration? = nil
    ) throws(OTFCloudantError) {
        do {
            let registry = try EntityRegistry(plugins: plugins)
            let options = StoreOptions(registry: registry, acceptsUnregisteredEntities: true)
            documentStore = try DocumentStore.open(
                name: storeName, in: StoreDirectory(path: directory), options: options)
        } catch {
            throw OTFCloudantError(error, during: .fetch)
        }
        self.storeName = storeName
        self.directory = directory
        self.timeout = timeout
    }

    /// Two stores are equal when they are the same file (the original compared names only).
    public static func == (lhs: OTFCloudantStore, rhs: OTFCloudantStore) -> Bool {
        lhs.documentStore.fileURL.standardizedFileURL == rhs.documentStore.fileURL.standardizedFileURL
    }

    /// Closes the store's file; later calls fail. See `DocumentStore/close()`.
    /// - Throws: `OTFCloudantError.deleteFailed(reason:)` when SQLite refuses to close a connection.
    public func close() throws(OTFCloudantError) {
        do {
            try documentStore.close()
        } catch {
            throw OTFCloudantError(error, during: .delete)
        }
    }
}

// MARK: Running calls

extension OTFCloudantStore {
    /// Runs `work` within ``timeout`` and turns what it throws into the `OTFCloudantError` of `operation`:
    /// the one way every drop-in call (this module's and the Care and Health flavours') runs.
    ///
    /// When the deadline passes first, the work is cancelled and the call fails with
    /// `OTFCloudantError.timedOut(reason:)`; a write that had already committed stays committed.
    public func perform<Value: Sendable>(
        _ operation: OTFCloudantError.Operation, _ work: @escaping @Sendable () async throws -> Value
    ) async throws(OTFCloudantError) -> Value {
        do {
            guard let timeout else { return try await work() }
            return try await Self.race(work, against: timeout, operation: operation)
        } catch {
            throw OTFCloudantError(error, during: operation)
        }
    }

    /// Runs ``perform(_:_:)`` and calls `completion` exactly once with its result, on `queue`.
    public func deliver<Value: Sendable>(
        _ operation: OTFCloudantError.Operation, on queue: DispatchQueue,
        to completion: (@Sendable (Result<Value, OTFCloudantError>) -> Void)?,
        _ work: @escaping @Sendable () async throws -> Value
    ) {
        Task {
            let result: Result<Value, OTFCloudantError>
            do throws(OTFCloudantError) {
                result = .success(try await perform(operation, work))
            } catch {
                result = .failure(error)
            }
            queue.async { completion?(result) }
        }
    }

    private static func race<Value: Sendable>(
        _ work: @escaping @Sendable () async throws -> Value, against timeout: Duration,
        operation: OTFCloudantError.Operation
    ) async throws -> Value {
        try await withThrowingTaskGroup(of: Value.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw OTFCloudantError.timedOut(
                    reason: "The \(operation) did not finish within \(timeout); it was cancelled. Retry, or open the "
                        + "store with a longer timeout.")
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    /// The one instance of `Companion` this store keeps for a flavour (the Care flavour's `CareStore`, whose
    /// knowledge clock must have a single owner), made by `make` on first use.
    public func companion<Companion: Sendable>(
        _ type: Companion.Type, make: () throws -> Companion
    ) rethrows -> Companion {
        try companions.value(for: type, make: make)
    }
}

/// What ``OTFCloudantStore/companion(_:make:)`` keeps, by type.
private final class CompanionTable: @unchecked Sendable {
    // `lock` protects `values`; a value is made under the lock, so two callers never make two.
    private let lock = NSLock()
    private var values: [ObjectIdentifier: any Sendable] = [:]

    func value<Companion: Sendable>(for type: Companion.Type, make: () throws -> Companion) rethrows -> Companion {
        try lock.withLock {
            if let existing = values[ObjectIdentifier(type)] as? Companion { return existing }
            let made = try make()
            values[ObjectIdentifier(type)] = made
            return made
        }
    }
}
