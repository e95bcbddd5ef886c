import CloudantCore
import CloudantOnly
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation

/// A fresh temporary folder for a test's stores, deleted when the value goes away (runs leave nothing in /tmp).
final class SeedFolder: Sendable {
    let path: String

    init(_ label: String = "seed") {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A drop-in store in this folder.
    func store(_ name: String = "seed", timeout: Duration? = nil) throws -> OTFCloudantStore {
        try OTFCloudantStore(storeName: name, directory: path, timeout: timeout)
    }
}

/// The documents of `Tests/Fixtures/OTFDocuments` (see its README): what the original OTFCloudantStore wrote,
/// built by hand from its source, and what a reader must recover from each.
enum OTFFixtures {
    static let folder = RepositoryFiles.fixtures("OTFDocuments")

    static func documents() throws -> [JSONObject] {
        let data = try Data(contentsOf: folder.appendingPathComponent("documents.json"))
        return try JSONValue(parsing: data)["docs"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    static func expected() throws -> JSONObject {
        let data = try Data(contentsOf: folder.appendingPathComponent("expected.json"))
        return try JSONValue(parsing: data).objectValue ?? JSONObject()
    }
}
