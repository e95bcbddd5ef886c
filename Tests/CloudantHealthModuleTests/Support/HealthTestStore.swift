import CloudantCore
import CloudantHealthModule
import CloudantStore
import Foundation

/// A real SQLite store in a fresh temporary folder, with the Health plugin installed.
struct HealthTestStore {
    let folder: URL
    let store: DocumentStore

    init(name: String = "health") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("health-tests-\(UUID().uuidString)")
        let ids = LockedCounter()
        store = try DocumentStore.open(
            name: name, in: StoreDirectory(path: folder.path),
            options: StoreOptions(
                registry: try EntityRegistry(plugins: [HealthPlugin()]),
                makeDocumentID: { String(format: "%032x", ids.next()) },
                now: { Date(timeIntervalSince1970: 1_717_243_200) }))
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// A thread-safe increasing counter for deterministic document ids.
final class LockedCounter: @unchecked Sendable {
    // `lock` protects `value`.
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// Dates used across the tests: 2024-06-01 13:00:00 -0700.
enum TestDates {
    static let june1 = Date(timeIntervalSince1970: 1_717_272_000)
    static let pacific = -7 * 3600
}
