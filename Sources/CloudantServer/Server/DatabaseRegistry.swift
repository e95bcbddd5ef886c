internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// The databases a server serves: one ``DocumentStore`` per SQLite file in the data folder, opened on
/// first use and kept open.
final class DatabaseRegistry: Sendable {
    /// CouchDB's system databases, allowed although they start with `_`.
    static let systemDatabases: Set<String> = ["_users", "_replicator"]

    let directory: StoreDirectory
    private let stores = Locked<[String: DocumentStore]>([:])

    init(directory: StoreDirectory) {
        self.directory = directory
    }

    /// Whether `name` follows CouchDB's rule `^[a-z][a-z0-9_$()+/-]*$` (or is a system database).
    static func isValidName(_ name: String) -> Bool {
        if systemDatabases.contains(name) { return true }
        guard name.utf8.count <= 238 else { return false }
        return (try? StoreDirectory.validate(storeName: name)) != nil
    }

    /// The 400 CouchDB answers for a bad name.
    static func illegalName(_ name: String) -> HTTPFailure {
        HTTPFailure(
            status: 400, error: "illegal_database_name",
            reason: "Name: '\(name)'. Only lowercase characters (a-z), digits (0-9), and any of the characters _, $, (, ), +, -, and / are allowed. Must begin with a letter.")
    }

    /// The file of database `name`; `/` is kept as `%2F`, so no name reaches outside the folder.
    func fileURL(_ name: String) throws -> URL {
        guard Self.isValidName(name) else { throw Self.illegalName(name) }
        if Self.systemDatabases.contains(name) {
            return URL(fileURLWithPath: directory.path, isDirectory: true).appendingPathComponent(name + ".sqlite")
        }
        return try directory.fileURL(forStore: name)
    }

    /// Whether the database exists.
    func exists(_ name: String) -> Bool {
        guard let url = try? fileURL(name) else { return false }
        return FileManager.default.fileExists(atPath: url.path)
    }

    /// The open store of an existing database.
    /// - Throws: ``HTTPFailure`` `404 not_found` "Database does not exist." (also for an illegal name, as
    ///   CouchDB answers GET on one, spec O-12).
    func store(_ name: String) throws -> DocumentStore {
        if let open = stores.withLock({ $0[name] }) { return open }
        guard exists(name) else { throw HTTPFailure.databaseNotFound }
        return try openStore(name)
    }

    /// Creates a database.
    /// - Throws: ``HTTPFailure`` `400 illegal_database_name` or `412 file_exists`.
    @discardableResult
    func create(_ name: String) throws -> DocumentStore {
        guard Self.isValidName(name) else { throw Self.illegalName(name) }
        guard !exists(name) else {
            throw HTTPFailure(
                status: 412, error: "file_exists",
                reason: "The database could not be created, the file already exists.")
        }
        return try openStore(name)
    }

    /// Opens (creating when missing) a system database such as `_users`.
    func openSystem(_ name: String) throws -> DocumentStore {
        if let open = stores.withLock({ $0[name] }) { return open }
        return try openStore(name)
    }

    /// Deletes a database and forgets its open store.
    /// - Throws: ``HTTPFailure`` `404 not_found` when it does not exist.
    func delete(_ name: String) throws {
        guard Self.isValidName(name), exists(name) else { throw HTTPFailure.databaseNotFound }
        let url = try fileURL(name)
        _ = stores.withLock { $0.removeValue(forKey: name) }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: url.path + suffix) {
            do {
                try FileManager.default.removeItem(atPath: url.path + suffix)
            } catch {
                throw CloudantError(
                    .deleteFailed, "Could not delete the database's files; check permissions.",
                    context: .init(database: name), underlying: error)
            }
        }
    }

    /// Every database, sorted, system databases included.
    func names() throws -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let system = Self.systemDatabases.filter { files.contains($0 + ".sqlite") }
        return (try directory.storeNames() + system).sorted()
    }

    private func openStore(_ name: String) throws -> DocumentStore {
        let url = try fileURL(name)
        return try stores.withLock { open in
            if let existing = open[name] { return existing }
            let store = try DocumentStore.open(name: name, fileURL: url)
            open[name] = store
            return store
        }
    }
}
