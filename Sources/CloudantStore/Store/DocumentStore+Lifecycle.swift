internal import CloudantCore
internal import Foundation
internal import GRDB

extension DocumentStore {
    /// Closes the store: the write in progress and the reads in progress finish, then every connection to
    /// the file is closed, live-change feeds end, and every later call throws.
    ///
    /// Close a store before deleting or replacing its file. SQLite deletes a database's `-wal` and `-shm`
    /// files *by name* when its last connection closes, so a connection left open on a deleted file could
    /// later delete the files of a new database created at the same path.
    ///
    /// ```swift
    /// try store.close()
    /// try StoreDirectory.deleteFiles(of: store.fileURL, database: store.name)
    /// ```
    ///
    /// This blocks until the reads in progress end; call it off the cooperative thread pool when a long
    /// scan may be running. Closing twice does nothing the second time.
    ///
    /// - Throws: `CloudantError` `.deleteFailed` when SQLite refuses to close a connection (the
    ///   underlying error is attached); the store is closed for callers all the same.
    public func close() throws {
        guard lifecycle.markClosed() else { return }
        expiry.stop()
        notifier.finish()
        checkpointer.stop()
        // Both sets are closed even when the first refuses, so no connection is left on a file about to go.
        var failure: (any Error)?
        do { try viewMaintenance.close() } catch { failure = error }
        do { try immediateReaders.close() } catch { failure = failure ?? error }
        do { try pool.close() } catch { failure = failure ?? error }
        if let failure {
            throw CloudantError(
                .deleteFailed, "The store's SQLite connections could not all be closed.",
                context: .init(database: name), underlying: failure)
        }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { lifecycle.isClosed }
}

/// Whether a store is open. Checked by every read and, inside the write transaction, by every write.
final class StoreLifecycle: @unchecked Sendable {
    // `lock` protects `closed`.
    private let lock = NSLock()
    private var closed = false

    var isClosed: Bool { lock.withLock { closed } }

    /// Marks the store closed; returns false when it already was.
    func markClosed() -> Bool {
        lock.withLock {
            defer { closed = true }
            return !closed
        }
    }

    /// - Throws: `CloudantError` `.notFound` once the store is closed.
    func requireOpen(database: String) throws {
        guard isClosed else { return }
        throw CloudantError(
            .notFound,
            "The store is closed (its database was deleted). Nothing was read or written; create the database "
                + "again or open the store again.",
            context: .init(database: database))
    }
}
