internal import CloudantCore
public import Foundation

/// The folder that holds a set of stores, one SQLite file per store: `<folder>/<name>.sqlite`.
///
/// Store names follow CouchDB's database-name rule (`^[a-z][a-z0-9_$()+/-]*$`), so any store can be
/// replicated to a CouchDB database of the same name. A `/` in a name is kept in the file name as `%2F`,
/// so a name can never reach outside the folder.
///
/// ```swift
/// let stores = StoreDirectory()                          // ./cloudant-data
/// let url = try stores.fileURL(forStore: "patients")     // ./cloudant-data/patients.sqlite
/// ```
public struct StoreDirectory: Sendable, Hashable {
    /// The default folder, relative to the working directory: `./cloudant-data`.
    public static let defaultPath = "cloudant-data"

    /// The folder's path.
    public let path: String

    /// Creates a directory handle; nothing is created on disk until a store is opened.
    public init(path: String = StoreDirectory.defaultPath) {
        self.path = path
    }

    /// The SQLite file of the store `name`.
    /// - Throws: `CloudantError.Code.invalidInput` naming the store when the name breaks CouchDB's rule.
    public func fileURL(forStore name: String) throws -> URL {
        try Self.validate(storeName: name)
        let fileName = name.replacingOccurrences(of: "/", with: "%2F") + ".sqlite"
        return URL(fileURLWithPath: path, isDirectory: true).appendingPathComponent(fileName)
    }

    /// The names of the stores in the folder, sorted; empty when the folder does not exist.
    public func storeNames() throws -> [String] {
        let files: [String]
        do {
            files = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch CocoaError.fileReadNoSuchFile {
            return []
        } catch {
            throw CloudantError(
                .storeUnreadable, "Could not list the stores in '\(path)'; check that it is a readable folder.",
                underlying: error)
        }
        return files.filter { $0.hasSuffix(".sqlite") }
            .map { String($0.dropLast(".sqlite".count)).replacingOccurrences(of: "%2F", with: "/") }
            .filter { (try? Self.validate(storeName: $0)) != nil }
            .sorted()
    }

    /// Whether the store `name` exists in the folder.
    /// - Throws: `CloudantError.Code.invalidInput` for a bad name.
    public func containsStore(_ name: String) throws -> Bool {
        FileManager.default.fileExists(atPath: try fileURL(forStore: name).path)
    }

    /// Deletes the store `name`: its SQLite file and the file's WAL and shared-memory companions.
    /// Close every `DocumentStore` on it first (``DocumentStore/close()``).
    /// - Throws: `CloudantError.Code.notFound` when there is no such store.
    public func deleteStore(_ name: String) throws {
        let url = try fileURL(forStore: name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CloudantError(.notFound, "Database does not exist.", context: .init(database: name))
        }
        try Self.deleteFiles(of: url, database: name)
    }

    /// Deletes a store's SQLite file and its companions so that a crash at any point leaves either the
    /// whole store or no store: the file is first renamed away (one atomic step, after which the store no
    /// longer exists), then the `-wal` and `-shm` companions, the renamed file and the attachment folder are removed. Companions
    /// left behind by a crash are removed when a store is next opened at that path, before SQLite sees them
    /// (SQLite also discards a WAL it finds beside an empty database file).
    ///
    /// Close every `DocumentStore` on the file first.
    /// - Throws: `CloudantError.Code.storeUnwritable` naming `database` when a file cannot be removed.
    public static func deleteFiles(of url: URL, database: String) throws {
        let manager = FileManager.default
        func failed(_ error: any Error) -> CloudantError {
            CloudantError(
                .storeUnwritable, "Could not delete the store's files; check the folder's permissions.",
                context: .init(database: database), underlying: error)
        }
        let doomed = url.path + ".deleting"
        do {
            if manager.fileExists(atPath: doomed) { try manager.removeItem(atPath: doomed) }
            if manager.fileExists(atPath: url.path) { try manager.moveItem(atPath: url.path, toPath: doomed) }
            for path in [url.path + "-wal", url.path + "-shm", doomed] where manager.fileExists(atPath: path) {
                try manager.removeItem(atPath: path)
            }
            try AttachmentFiles.removeAll(forDatabaseAt: url.path)
        } catch {
            throw failed(error)
        }
    }

    /// Removes the `-wal`, `-shm` and `.deleting` leftovers of a store file that does not exist (what a
    /// crash during ``deleteFiles(of:database:)`` can leave), so a new store at that path starts from nothing.
    static func removeStaleCompanions(of url: URL) throws {
        let manager = FileManager.default
        guard !manager.fileExists(atPath: url.path) else { return }
        for path in [url.path + "-wal", url.path + "-shm", url.path + ".deleting"] where manager.fileExists(atPath: path) {
            try manager.removeItem(atPath: path)
        }
        try AttachmentFiles.removeAll(forDatabaseAt: url.path)
    }

    /// Checks a store name against CouchDB's database-name rule (`couch_db:validate_dbname/1`):
    /// `^[a-z][a-z0-9_$()+/-]*`, then optionally a shard timestamp, a `.` and ten or more digits
    /// (`mydb.1733328668`, as CouchDB's shard files end).
    /// - Throws: `CloudantError.Code.invalidInput` with the name as `database` context.
    public static func validate(storeName name: String) throws {
        let scalars = Array(name.unicodeScalars)
        var end = scalars.count
        if let dot = scalars.lastIndex(of: "."), scalars.count - dot - 1 >= 10,
            scalars[(dot + 1)...].allSatisfy({ ("0"..."9").contains($0) })
        {
            end = dot
        }
        guard let first = scalars.first, ("a"..."z").contains(first), scalars[..<end].allSatisfy(isAllowed) else {
            throw CloudantError(
                .invalidInput,
                "A store name must start with a lowercase letter and contain only a-z, 0-9 and _ $ ( ) + - / (then optionally a '.' and ten or more digits).",
                context: .init(database: name, field: "name"))
        }
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || "_$()+-/".unicodeScalars.contains(scalar)
    }
}
