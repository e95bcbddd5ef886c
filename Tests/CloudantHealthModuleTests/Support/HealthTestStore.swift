import CloudantCore
import CloudantHealthModule
import CloudantStore
import CloudantTestSupport
import Foundation

/// A real SQLite store in a fresh temporary folder, with the Health plugin installed.
struct HealthTestStore {
    let folder: URL
    let store: DocumentStore

    init(name: String = "health") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("health-tests-\(UUID().uuidString)")
        let ids = SequentialNumbers()
        store = try DocumentStore.open(
            name: name, in: StoreDirectory(path: folder.path),
            options: StoreOptions(
                registry: try EntityRegistry(plugins: [HealthPlugin()]),
                makeDocumentID: { String(format: "%032x", ids.next()) },
                now: { Date(timeIntervalSince1970: 1_717_243_200) }))
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

/// Dates used across the tests: 2024-06-01 13:00:00 -0700.
enum TestDates {
    static let june1 = Date(timeIntervalSince1970: 1_717_272_000)
    static let pacific = -7 * 3600
}

/// One export imported twice, from its `.zip` and from its folder, each into a fresh store, for tests that the
/// two read the same.
struct ZipAndFolderImport {
    let zipped: HealthTestStore
    let unzipped: HealthTestStore
    let fromZip: HealthImportReport
    let fromFolder: HealthImportReport

    init(_ export: GeneratedHealthExport) async throws {
        zipped = try HealthTestStore(name: "zipped")
        unzipped = try HealthTestStore(name: "unzipped")
        fromZip = try await AppleHealthImporter(store: zipped.store).importExport(at: export.zipFile)
        fromFolder = try await AppleHealthImporter(store: unzipped.store).importExport(at: export.exportFolder)
    }

    func remove() {
        zipped.remove()
        unzipped.remove()
    }
}
