internal import CSQLite
internal import Foundation
internal import GRDB
internal import Synchronization

/// Copies the write-ahead log into the database file on a connection of its own, off the writer's thread,
/// so a commit does not stop for it.
///
/// SQLite's default: the connection that commits checkpoints once the log holds 1,000 pages. That copy, with
/// its two `fdatasync`s, then runs inside the commit, and the caller waits for it: in the bulk-insert benchmark (100k documents in
/// batches of 1,000) the writer stopped every three batches for 5–10 ms while the other core had nothing to
/// do. Here the writer's commit hook only schedules a passive checkpoint on the process's ``LowPriorityThread``,
/// which runs it at low priority (a passive checkpoint takes no lock a writer or a reader needs). The writer still checkpoints by itself, as SQLite does, once the log
/// reaches ``writerPages``, which bounds the log should the checkpoints fall behind.
///
/// Bulk loads (`bulkLoading`) raise ``writerPages`` and turn the wake-ups off while their own
/// ``BackgroundCheckpointer`` polls instead.
final class LogCheckpointer: @unchecked Sendable {
    // Unchecked: `connection` is used only under `connectionLock`.
    /// The log size, in pages, from which a commit wakes the checkpointer (SQLite's own threshold).
    let backgroundPages = Atomic<Int>(LogCheckpointer.defaultBackgroundPages)
    /// The log size, in pages, from which the committing connection checkpoints by itself.
    let writerPages = Atomic<Int>(LogCheckpointer.defaultWriterPages)

    /// The log's size when a commit last woke the checkpointer (only the writer's hook uses it).
    private let pagesAtLastWake = Atomic<Int>(0)
    /// How many checkpoints have run here (for tests).
    let checkpointsRun = Atomic<Int>(0)

    static let defaultBackgroundPages = 1_000
    /// 64 MB of 4 KB pages: the size the log is cut back to after a checkpoint (`journal_size_limit`).
    static let defaultWriterPages = 16_384

    private let path: String
    /// The store's connection configuration without this hook: for other connections of the store's own.
    let connectionConfiguration: Configuration
    private let state = Mutex(State())
    /// Held while a checkpoint runs and while the connection opens or closes.
    private let connectionLock = NSLock()
    /// Opened by the first checkpoint; used only under `connectionLock`.
    private var connection: DatabaseQueue?
    /// The connection while a checkpoint runs on it, for ``stop()`` to interrupt.
    private let running = Mutex<DatabaseQueue?>(nil)

    private struct State {
        var scheduled = false
        var stopping = false
    }

    /// A checkpointer for the file at `path`; its connection (opened with `configuration`, which must not
    /// install this hook) opens at the first checkpoint.
    init(path: String, configuration: Configuration) {
        self.path = path
        connectionConfiguration = configuration
    }

    /// Makes `db` (the writer's connection) wake this checkpointer after its commits. The connection's
    /// configuration must hold a strong reference to `self` for as long as the connection is open (the
    /// `prepareDatabase` closure that calls this does).
    func install(on db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_wal_hook(connection, logCheckpointerHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by the hook after a commit that left `pages` pages in the log.
    fileprivate func committed(pages: Int, connection: OpaquePointer?, schema: UnsafePointer<CChar>?) {
        if pages >= writerPages.load(ordering: .relaxed) {
            // What SQLite's own hook does; a checkpoint running on `work` makes it return at once.
            sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        } else {
            // Once per `backgroundPages` pages of new log, as often as SQLite's own checkpoints would run:
            // waking it after every commit of a busy writer made it sync the file after every commit (the
            // single-write benchmark, one document a transaction, went from 1.7× to 1.9× raw SQLite; 1.4–1.6× with this).
            let threshold = backgroundPages.load(ordering: .relaxed)
            var woken = pagesAtLastWake.load(ordering: .relaxed)
            if pages < woken {  // The log started over.
                woken = 0
                pagesAtLastWake.store(0, ordering: .relaxed)
            }
            if pages - woken >= threshold {
                pagesAtLastWake.store(pages, ordering: .relaxed)
                request()
            }
        }
    }

    private func request() {
        let schedule = state.withLock { state -> Bool in
            guard !state.stopping, !state.scheduled else { return false }
            state.scheduled = true
            return true
        }
        if schedule { LowPriorityThread.checkpoints.run { self.runScheduled() } }
    }

    private func runScheduled() {
        // Cleared first, so a commit during this checkpoint schedules the next one.
        let stopping = state.withLock { state -> Bool in
            state.scheduled = false
            return state.stopping
        }
        guard !stopping else { return }
        connectionLock.withLock {
            guard !state.withLock({ $0.stopping }) else { return }
            // A failed checkpoint (the file busy, the disk full, interrupted by `stop()`) is left to the
            // writer's own, which reports it.
            do {
                if connection == nil { connection = try DatabaseQueue(path: path, configuration: connectionConfiguration) }
                running.withLock { $0 = connection }
                defer { running.withLock { $0 = nil } }
                try connection?.inDatabase { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
                checkpointsRun.add(1, ordering: .relaxed)
            } catch {}
        }
    }

    /// Whether the checkpointer's connection is open: from its first checkpoint until ``stop()`` (for tests).
    var isOpen: Bool { connectionLock.withLock { connection != nil } }

    /// Stops checkpointing, interrupting a checkpoint under way (at low priority on a busy machine it
    /// could take long) and waiting for it to end, and closes the connection. Later commits no longer
    /// schedule one (the writer's own checkpoints remain).
    func stop() {
        state.withLock { $0.stopping = true }
        running.withLock { $0?.interrupt() }
        connectionLock.withLock {
            try? connection?.close()
            connection = nil
        }
    }
}

/// The writer connection's log hook (`sqlite3_wal_hook`); `context` is its ``LogCheckpointer``.
private func logCheckpointerHook(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, schema: UnsafePointer<CChar>?, pages: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<LogCheckpointer>.fromOpaque(context).takeUnretainedValue()
        .committed(pages: Int(pages), connection: connection, schema: schema)
    return SQLITE_OK
}
