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
    /// - Throws: `CloudantError` `.storeUnwritable` when SQLite refuses to close a connection (the
    ///   underlying error is attached); the store is closed for callers all the same.
    public func close() throws {
        guard lifecycle.closeAfterUses() else { return }
        expiry.stop()
        notifier.finish()
        checkpointer.stop()
        // Both sets are closed even when the first refuses, so no connection is left on a file about to go.
        var failure: (any Error)?
        do { try viewMaintenance.close() } catch { failure = error }
        do { try immediateReaders.close() } catch { failure = failure ?? error }
        foldLog()
        do { try pool.close() } catch { failure = failure ?? error }
        if let failure {
            throw CloudantError(
                .storeUnwritable, "The store's SQLite connections could not all be closed.",
                context: .init(database: name), underlying: failure)
        }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { lifecycle.isClosed }

    /// Copies the write-ahead log into the file and empties it, on the writer, as the store closes or is
    /// released: the `.sqlite` file then holds every commit by itself.
    ///
    /// SQLite folds the log when the last connection to a file closes, but only when that connection can
    /// write; GRDB's pool may close a read-only reader last, which left a bulk load's commits in the log.
    /// The checkpoint does not wait: where another process reads the file (a server beside a command), it
    /// copies what it can and the log is folded by whoever closes last.
    func foldLog() {
        try? pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA busy_timeout = 0")
            _ = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
    }
}

/// Whether a store is open. Checked by every read and, inside the write transaction, by every write; the
/// uses of GRDB's pool run inside ``whileOpen(database:_:)``, so that closing waits for them.
///
/// GRDB's `DatabasePool` checks that it is open before it takes a connection, not while: a read that passed the
/// check as ``DocumentStore/close()`` closed the connections went on with a closed one, and SQLite read
/// through its null handle (SIGSEGV in `sqlite3_get_autocommit`, seen under `DELETE /db` racing requests).
final class StoreLifecycle: @unchecked Sendable {
    // `condition` protects `closed` and `uses`.
    private let condition = NSCondition()
    private var closed = false
    private var uses = 0

    var isClosed: Bool { condition.withLock { closed } }

    /// Marks the store closed, then waits until no use of its connections is in progress; returns false when
    /// it already was closed.
    func closeAfterUses() -> Bool {
        condition.withLock {
            guard !closed else { return false }
            closed = true
            while uses > 0 { condition.wait() }
            return true
        }
    }

    /// Runs `body` as a use of the store's connections: ``closeAfterUses()`` waits for it to end.
    ///
    /// - Throws: `CloudantError` `.notFound` when the store is closed (`body` does not run); what `body` throws.
    func whileOpen<T>(database: String, _ body: () throws -> T) throws -> T {
        let open = condition.withLock {
            if !closed { uses += 1 }
            return !closed
        }
        guard open else { throw Self.closedError(database: database) }
        defer {
            condition.withLock {
                uses -= 1
                if uses == 0 { condition.broadcast() }
            }
        }
        return try body()
    }

    /// - Throws: `CloudantError` `.notFound` once the store is closed.
    func requireOpen(database: String) throws {
        guard isClosed else { return }
        throw Self.closedError(database: database)
    }

    private static func closedError(database: String) -> CloudantError {
        CloudantError(
            .notFound,
            "The store is closed (its database was deleted). Nothing was read or written; create the database "
                + "again or open the store again.",
            context: .init(database: database))
    }
}
