internal import CloudantCore
internal import Dispatch
internal import Foundation
internal import GRDB
internal import Synchronization

/// Where a store's view indexes are brought up to date: one connection of their own to the store's file, on
/// one thread of their own, so an index update runs one at a time per store, never holds the store's writer
/// while it reads and maps documents, and never blocks a cooperative thread.
///
/// The connection writes only while it stores rows (SQLite's write lock, as any writer takes it); it reads
/// documents in snapshots like any reader. It never checkpoints the log, and no checkpoint runs while an
/// update holds it (see ``LogCheckpointer``): a checkpoint overlapping a commit of another connection can lose
/// that commit in the SQLite this links.
final class ViewMaintenance: @unchecked Sendable {
    /// Whose ``LogCheckpointer/writeExclusion`` an update holds.
    private let checkpointer: LogCheckpointer
    // Everything below is touched only on `queue`.
    private let queue = DispatchQueue(label: "org.theraforge.cloudant.views")
    private var connection: DatabaseQueue?
    /// A second connection a first build reads documents through on a thread of its own
    /// (``ViewBuildPipeline``), opened at the first build that asks for it; and where to open it.
    private var reader: DatabaseQueue?
    private var readerSettings: (path: String, configuration: Configuration)?
    private var closed = false
    /// Updates running or waiting; read from any thread.
    private let pending = Mutex(0)
    /// The update running now, as `/_active_tasks` lists it; read from any thread.
    let progress = ViewIndexProgress()

    init(checkpointer: LogCheckpointer) {
        self.checkpointer = checkpointer
    }

    /// Whether an index update is running or waiting.
    var isUpdating: Bool { pending.withLock { $0 > 0 } }

    /// Runs `body` with the maintenance connection on the maintenance thread.
    func run<T: Sendable>(
        path: String, configuration: Configuration, _ body: @escaping @Sendable (DatabaseQueue) throws -> T
    ) async throws -> T {
        pending.withLock { $0 += 1 }
        defer { pending.withLock { $0 -= 1 } }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(
                    with: Result {
                        guard !self.closed else {
                            throw CloudantError(.notFound, "The store is closed; its views cannot be updated.")
                        }
                        if self.connection == nil {
                            let connection = try DatabaseQueue(path: path, configuration: configuration)
                            // A build reads every document once: through read() and a small cache, so the pages it
                            // passes do not stay mapped in the process (the store's readers map the file).
                            try connection.writeWithoutTransaction { db in
                                try db.execute(sql: "PRAGMA mmap_size = 0")
                                try db.execute(sql: "PRAGMA cache_size = -8192")
                                // The store's writer alone checkpoints (see LogCheckpointer).
                                try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
                            }
                            self.connection = connection
                        }
                        guard let connection = self.connection else { throw CancellationError() }
                        self.readerSettings = (path, configuration)
                        self.checkpointer.writeExclusion.lock()
                        defer { self.checkpointer.writeExclusion.unlock() }
                        return try body(connection)
                    })
            }
        }
    }

    /// The connection a first build reads documents through, opened when first asked for. Called only inside
    /// ``run(path:configuration:_:)``'s body, on the maintenance thread.
    func documentReader() throws -> DatabaseQueue {
        if let reader { return reader }
        guard let readerSettings else { throw CancellationError() }
        let reader = try DatabaseQueue(path: readerSettings.path, configuration: readerSettings.configuration)
        try reader.writeWithoutTransaction { db in
            // It reads every document once, in order: through read() and a small cache, as the maintenance
            // connection does; it never writes.
            try db.execute(sql: "PRAGMA mmap_size = 0")
            try db.execute(sql: "PRAGMA cache_size = -2048")
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            try db.execute(sql: "PRAGMA query_only = 1")
        }
        self.reader = reader
        return reader
    }

    /// Closes the connections once the update in progress ends.
    func close() throws {
        try queue.sync {
            closed = true
            try connection?.close()
            connection = nil
            try reader?.close()
            reader = nil
        }
    }
}
