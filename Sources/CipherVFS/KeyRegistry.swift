import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process-wide map from database path to key that the VFS consults when SQLite opens a file.
///
/// Paths are stored canonical (absolute, symlinks resolved), the form SQLite's unix VFS hands to xOpen, so
/// the common lookup is one dictionary probe. Lookups from xOpen run on SQLite's threads, hence the lock.
final class KeyRegistry: @unchecked Sendable {
    static let shared = KeyRegistry()

    /// Protects `keys`; held only for dictionary access, never across a call into SQLite.
    private let lock = NSLock()
    private var keys: [String: SymmetricKey] = [:]

    func register(_ key: SymmetricKey, forDatabaseAt path: String) {
        let canonical = Self.canonicalPath(path)
        lock.withLock { keys[canonical] = key }
    }

    func unregister(path: String) {
        let canonical = Self.canonicalPath(path)
        lock.withLock { _ = keys.removeValue(forKey: canonical) }
    }

    /// The key for a database path as SQLite names it, or `nil` for a database that is not encrypted.
    func key(forDatabaseAt sqlitePath: String) -> SymmetricKey? {
        let (isEmpty, exact) = lock.withLock { (keys.isEmpty, keys[sqlitePath]) }
        if isEmpty { return nil } // the unencrypted-only process pays one lock and one check per open
        if let exact { return exact }
        // SQLite's spelling differed from the registered one (for example a symlink it did not resolve).
        let canonical = Self.canonicalPath(sqlitePath)
        return canonical == sqlitePath ? nil : lock.withLock { keys[canonical] }
    }

    /// Absolute, with symlinks resolved in every component that exists. The database itself may not exist
    /// yet, so its directory is resolved and the file name appended.
    static func canonicalPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        if let resolved = realPath(absolute) { return resolved }
        let nsPath = absolute as NSString
        if let directory = realPath(nsPath.deletingLastPathComponent) {
            return (directory as NSString).appendingPathComponent(nsPath.lastPathComponent)
        }
        return nsPath.standardizingPath
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
