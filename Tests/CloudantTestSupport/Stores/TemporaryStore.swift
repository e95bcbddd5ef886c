public import CloudantCore
public import CloudantStore
public import Foundation

/// A real store (SQLite in WAL mode) in a fresh temporary folder, removed when the value goes away.
///
/// Document ids a write does not give are `generated-0001`, `generated-0002`… so answers are deterministic.
/// ``inMemory(name:registry:options:)`` puts the same real store on a memory-backed file system instead, for tests
/// that write a lot and do not care about the disk.
///
/// ```swift
/// let temp = try TemporaryStore(registry: try EntityRegistry(plugins: [CarePlugin()]))
/// try temp.store.save(document)
/// let again = try temp.reopen()  // as a restarted process would
/// ```
public final class TemporaryStore: Sendable {
    /// The folder that holds the store's file (and its attachment folder).
    public let folder: URL
    /// The open store.
    public let store: DocumentStore

    /// Opens a new store `name` in a fresh temporary folder with `options`, its registry replaced by `registry`
    /// and its document ids made deterministic.
    /// - Throws: what ``CloudantStore/DocumentStore/open(name:in:options:)`` throws.
    public convenience init(
        registry: EntityRegistry = EntityRegistry(), name: String = "test", options: StoreOptions = StoreOptions()
    ) throws {
        try self.init(
            in: FileManager.default.temporaryDirectory, registry: registry, name: name, options: options)
    }

    /// The same store on a memory-backed file system (`/dev/shm` when the machine has one): a real SQLite file in
    /// WAL mode, without disk writes.
    /// - Throws: what ``CloudantStore/DocumentStore/open(name:in:options:)`` throws.
    public static func inMemory(
        name: String = "test", registry: EntityRegistry = EntityRegistry(), options: StoreOptions = StoreOptions()
    ) throws -> TemporaryStore {
        var isFolder: ObjCBool = false
        let shm = URL(fileURLWithPath: "/dev/shm")
        let parent =
            FileManager.default.fileExists(atPath: shm.path, isDirectory: &isFolder) && isFolder.boolValue
            ? shm : FileManager.default.temporaryDirectory
        return try TemporaryStore(in: parent, registry: registry, name: name, options: options)
    }

    private init(in parent: URL, registry: EntityRegistry, name: String, options: StoreOptions) throws {
        folder = parent.appendingPathComponent("cloudant-store-\(UUID().uuidString)")
        let ids = SequentialNumbers()
        var options = options
        options.registry = registry
        options.makeDocumentID = { String(format: "generated-%04d", ids.next()) }
        store = try DocumentStore.open(name: name, in: StoreDirectory(path: folder.path), options: options)
    }

    /// Opens the same file again, as a restarted process would.
    /// - Throws: what ``CloudantStore/DocumentStore/open(name:fileURL:options:)`` throws.
    public func reopen(registry: EntityRegistry = EntityRegistry()) throws -> DocumentStore {
        try reopen(options: StoreOptions(registry: registry))
    }

    /// Opens the same file again with `options` (an encrypted store needs its key).
    /// - Throws: what ``CloudantStore/DocumentStore/open(name:fileURL:options:)`` throws.
    public func reopen(options: StoreOptions) throws -> DocumentStore {
        try DocumentStore.open(name: store.name, fileURL: store.fileURL, options: options)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}
