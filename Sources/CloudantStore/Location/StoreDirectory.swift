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
    /// - Throws: ``CloudantError/Code/invalidValue`` naming the store when the name breaks CouchDB's rule.
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
                .fetchFailed, "Could not list the stores in '\(path)'; check that it is a readable folder.",
                underlying: error)
        }
        return files.filter { $0.hasSuffix(".sqlite") }
            .map { String($0.dropLast(".sqlite".count)).replacingOccurrences(of: "%2F", with: "/") }
            .filter { (try? Self.validate(storeName: $0)) != nil }
            .sorted()
    }

    /// Whether the store `name` exists in the folder.
    /// - Throws: ``CloudantError/Code/invalidValue`` for a bad name.
    public func containsStore(_ name: String) throws -> Bool {
        FileManager.default.fileExists(atPath: try fileURL(forStore: name).path)
    }

    /// Deletes the store `name`: its SQLite file and the file's WAL and shared-memory companions.
    /// Close every `DocumentStore` on it first.
    /// - Throws: ``CloudantError/Code/notFound`` when there is no such store.
    public func deleteStore(_ name: String) throws {
        let url = try fileURL(forStore: name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CloudantError(.notFound, "Database does not exist.", context: .init(database: name))
        }
        for suffix in ["", "-wal", "-shm"] {
            let path = url.path + suffix
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw CloudantError(
                    .deleteFailed, "Could not delete the store's files; check permissions.",
                    context: .init(database: name), underlying: error)
            }
        }
    }

    /// Checks a store name against CouchDB's database-name rule.
    /// - Throws: ``CloudantError/Code/invalidValue`` with the name as `database` context.
    public static func validate(storeName name: String) throws {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first),
            name.unicodeScalars.allSatisfy(isAllowed)
        else {
            throw CloudantError(
                .invalidValue,
                "A store name must start with a lowercase letter and contain only a-z, 0-9 and _ $ ( ) + - /.",
                context: .init(database: name, field: "name"))
        }
    }

    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) || "_$()+-/".unicodeScalars.contains(scalar)
    }
}
