import CloudantCore
import CloudantStore
import Foundation

/// A real store in a fresh temporary folder, removed when the test ends.
final class TemporaryStore: @unchecked Sendable {
    // Immutable after init; the folder is only removed in deinit.
    let folder: URL
    let store: DocumentStore

    init(registry: EntityRegistry = EntityRegistry(), name: String = "test", options: StoreOptions = StoreOptions()) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cloudant-store-\(UUID().uuidString)")
        let counter = Counter()
        var options = options
        options.registry = registry
        options.makeDocumentID = { String(format: "generated-%04d", counter.next()) }
        store = try DocumentStore.open(name: name, in: StoreDirectory(path: folder.path), options: options)
    }

    /// Opens the same file again, as a restarted process would.
    func reopen(registry: EntityRegistry = EntityRegistry()) throws -> DocumentStore {
        try reopen(options: StoreOptions(registry: registry))
    }

    /// Opens the same file again with `options` (an encrypted store needs its key).
    func reopen(options: StoreOptions) throws -> DocumentStore {
        try DocumentStore.open(name: store.name, fileURL: store.fileURL, options: options)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

/// A thread-safe counter for deterministic generated ids.
final class Counter: @unchecked Sendable {
    // `lock` protects `value`.
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}

extension JSONObject {
    /// The `_rev` member as a string, for brevity in tests.
    var rev: String? { self["_rev"]?.stringValue }
}

/// A revision string with a given generation and a 32-hex hash made from `seed`.
func rev(_ generation: Int, _ seed: Character) -> String {
    "\(generation)-" + String(repeating: seed, count: 32)
}
