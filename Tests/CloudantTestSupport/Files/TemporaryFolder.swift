public import Foundation

/// A fresh, empty folder under the system's temporary directory, removed with everything in it when the value goes
/// away, so test runs leave nothing behind.
///
/// ```swift
/// let folder = try TemporaryFolder("import")
/// try data.write(to: folder.file("export.xml"))
/// ```
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL
    // Set at init only: a folder handed in by its owner is not removed.
    private let removesOnDeinit: Bool

    /// Makes a folder named `label-UUID`.
    /// - Throws: the file system's error when the folder cannot be created.
    public init(_ label: String = "cloudant-tests") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        removesOnDeinit = true
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Wraps a folder that someone else owns and removes (it is left in place).
    public init(existing url: URL) {
        self.url = url
        removesOnDeinit = false
    }

    /// The folder's path.
    public var path: String { url.path }

    /// `name` inside the folder (nothing is created).
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// A new empty subfolder `name`.
    /// - Throws: the file system's error when it cannot be created.
    public func subfolder(_ name: String) throws -> URL {
        let folder = file(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Removes the folder now (a test that checks what is left of it afterwards).
    public func remove() { try? FileManager.default.removeItem(at: url) }

    deinit {
        // SQLite keeps the descriptors of a store still open valid after the unlink.
        if removesOnDeinit { try? FileManager.default.removeItem(at: url) }
    }
}
