internal import CloudantCore
internal import Foundation
internal import GRDB

/// Read-only connections for the reads that run on the calling thread (``DocumentStore/readNow(_:_:)``),
/// kept apart from GRDB's reader pool.
///
/// Why not GRDB's pool: an async read holds its pool connection until its task resumes on the cooperative
/// thread pool. A synchronous read that waits for a pool connection blocks a cooperative thread, and once
/// every cooperative thread waits so, the async reads holding the connections can never resume to give them
/// back: the process stops for good. It did, under `_find` from 16 HTTP connections on two cores. These
/// connections are only ever held by synchronous code that never suspends, so waiting for one lasts at most
/// as long as another short read.
final class ImmediateReaders: @unchecked Sendable {
    /// One connection and the schema version its caches were built for.
    private final class Reader {
        let queue: DatabaseQueue
        var schemaVersion: Int32?

        init(queue: DatabaseQueue) { self.queue = queue }
    }

    // `condition` protects everything below it.
    private let condition = NSCondition()
    private var idle: [Reader] = []
    private var opened = 0
    private var closed = false

    private let path: String
    private let configuration: Configuration
    private let limit: Int

    /// Connections to the file at `path`, opened when first needed (at most `limit`), with `configuration`
    /// made read-only.
    init(path: String, configuration: Configuration, limit: Int = max(2, ProcessInfo.processInfo.activeProcessorCount)) {
        var readOnly = configuration
        readOnly.readonly = true
        self.path = path
        self.configuration = readOnly
        self.limit = limit
    }

    /// Opens the first connection now, so that opening the store fails rather than its first read (as
    /// GRDB's pool opens its first reader when the store reads its identity).
    func openFirst() throws {
        checkIn(try checkOut())
    }

    /// Runs `body` in a deferred transaction on a connection of its own, on the calling thread.
    ///
    /// `body` must not suspend or wait for another read: the connection is held until it returns.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        let reader = try checkOut()
        defer { checkIn(reader) }
        return try reader.queue.inDatabase { db in
            try db.inCachedTransaction(.deferred) { db in
                // As GRDB's pool readers do: after a schema change by another connection (an index created
                // or deleted), cached statements and schema information are dropped, since SQLite re-prepares
                // a statement only a few times before failing.
                let version = try db.schemaVersion()
                if reader.schemaVersion != version {
                    db.clearSchemaCache()
                    reader.schemaVersion = version
                }
                return try body(db)
            }
        }
    }

    /// Waits for the reads in progress, then closes every connection; later reads throw. Closing again
    /// does nothing.
    func close() throws {
        let readers: [Reader] = condition.withLock {
            closed = true
            while idle.count < opened { condition.wait() }
            defer {
                idle = []
                opened = 0
            }
            return idle
        }
        for reader in readers { try reader.queue.close() }
    }

    private func checkOut() throws -> Reader {
        condition.lock()
        defer { condition.unlock() }
        while true {
            // The store's own check (``StoreLifecycle``) answers first; this is the race with `close()`.
            if closed { throw CloudantError(.notFound, "The store is closed. Nothing was read.") }
            if let reader = idle.popLast() { return reader }
            if opened < limit {
                opened += 1
                do {
                    return Reader(queue: try DatabaseQueue(path: path, configuration: configuration))
                } catch {
                    opened -= 1
                    throw error
                }
            }
            condition.wait()
        }
    }

    private func checkIn(_ reader: Reader) {
        condition.withLock {
            idle.append(reader)
            // A reader waiting for a connection, or `close()` waiting for all of them.
            condition.broadcast()
        }
    }
}
