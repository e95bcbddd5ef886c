internal import CSQLite
internal import Foundation
internal import GRDB
internal import Synchronization

/// Decides when the write-ahead log is copied into the database file, and makes sure that every copy
/// (checkpoint) runs on the store's writer connection while no other connection of the store writes.
///
/// Why only there: SQLite up to 3.51.2 (Debian 12 ships 3.40.1) has the WAL-reset bug
/// (<https://sqlite.org/wal.html#walresetbug>). When a checkpoint starts just after another has copied the
/// whole log, and a second connection commits meanwhile and so starts the log over, the late checkpoint
/// records part of the new log as already copied: readers then take those pages from the file, where they are
/// older, and no later checkpoint copies them, so committed writes are lost and the file can be corrupted.
/// A checkpointer on a connection of its own beside a busy writer (as this store had, polling every 20 ms
/// during bulk loads) meets those conditions over and over. A checkpoint run by the one connection that
/// commits cannot overlap a commit of its own, and the store's one other writing connection (view
/// maintenance, see ``ViewMaintenance``) holds ``writeExclusion`` for as long as it may write, which every
/// checkpoint takes too. Reader connections are read-only: SQLite never checkpoints or restarts the log on them.
///
/// When: after a commit that grew the log by ``backgroundPages`` pages since the last request (SQLite's own
/// threshold), a passive checkpoint is queued behind the writes waiting for the writer, so the commit that
/// triggered it returns first and a writer that is idle between writes does the copy then; past
/// ``writerPages`` the committing connection checkpoints at once, which bounds the log should queued ones
/// fall behind. A checkpoint that finds view maintenance writing is skipped; a later commit asks again.
///
/// Bulk loads (`bulkLoading`) turn the queued checkpoints off and lower ``writerPages`` to 32 MB.
final class LogCheckpointer: Sendable {
    /// The log size, in pages, from which a commit queues a checkpoint (SQLite's own threshold).
    let backgroundPages = Atomic<Int>(LogCheckpointer.defaultBackgroundPages)
    /// The log size, in pages, from which the writer checkpoints inside its commit.
    let writerPages = Atomic<Int>(LogCheckpointer.defaultWriterPages)
    /// Held by view maintenance while its connection may write, and by every checkpoint: a checkpoint
    /// never runs while another connection than the writer commits (see the type's documentation).
    let writeExclusion = NSLock()

    /// The log's size when a commit last queued a checkpoint (only the writer's hook uses it).
    private let pagesAtLastRequest = Atomic<Int>(0)
    /// How many checkpoints have run, queued or inside a commit (for tests).
    let checkpointsRun = Atomic<Int>(0)
    /// How many were skipped because view maintenance was writing (for tests).
    let checkpointsSkipped = Atomic<Int>(0)

    static let defaultBackgroundPages = 1_000
    /// 64 MB of 4 KB pages: the size the log is cut back to after a checkpoint (`journal_size_limit`).
    static let defaultWriterPages = 16_384

    private let state = Mutex(State())

    private struct State {
        var scheduled = false
        var stopping = false
        /// Runs a passive checkpoint on the writer connection, in turn with the store's writes.
        var runner: (@Sendable () async -> Void)?
    }

    /// Sets what runs a queued checkpoint: the store's writer, through its writer gate.
    func setRunner(_ runner: @escaping @Sendable () async -> Void) {
        state.withLock { $0.runner = runner }
    }

    /// Makes `db` (the store's writer) report its commits to this checkpointer, replacing SQLite's automatic
    /// checkpoints. The connection's configuration must keep `self` alive for as long as the connection is
    /// open (the `prepareDatabase` closure that calls this does). Another writing connection turns checkpoints
    /// off instead (`PRAGMA wal_autocheckpoint = 0`, as view maintenance does).
    func install(on db: Database) {
        guard let connection = db.sqliteConnection else { return }
        sqlite3_wal_hook(connection, writerLogHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Runs `checkpoint` unless view maintenance is writing; returns whether it ran.
    @discardableResult
    func ifNoOtherWriter(_ checkpoint: () throws -> Void) rethrows -> Bool {
        guard writeExclusion.try() else {
            checkpointsSkipped.add(1, ordering: .relaxed)
            return false
        }
        defer { writeExclusion.unlock() }
        try checkpoint()
        checkpointsRun.add(1, ordering: .relaxed)
        return true
    }

    /// Called by the writer's hook after a commit that left `pages` pages in the log.
    fileprivate func writerCommitted(pages: Int, connection: OpaquePointer?, schema: UnsafePointer<CChar>?) {
        if pages >= writerPages.load(ordering: .relaxed) {
            // What SQLite's own hook does, here only while no other connection can commit.
            ifNoOtherWriter { sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil) }
            return
        }
        // Once per `backgroundPages` pages of new log, as often as SQLite's own checkpoints would run.
        let threshold = backgroundPages.load(ordering: .relaxed)
        var requested = pagesAtLastRequest.load(ordering: .relaxed)
        if pages < requested {  // The log started over.
            requested = 0
            pagesAtLastRequest.store(0, ordering: .relaxed)
        }
        if pages - requested >= threshold {
            pagesAtLastRequest.store(pages, ordering: .relaxed)
            request()
        }
    }

    private func request() {
        let runner = state.withLock { state -> (@Sendable () async -> Void)? in
            guard !state.stopping, !state.scheduled, let runner = state.runner else { return nil }
            state.scheduled = true
            return runner
        }
        guard let runner else { return }
        Task.detached {
            // Cleared first, so a commit during this checkpoint queues the next one.
            let stopping = self.state.withLock { state -> Bool in
                state.scheduled = false
                return state.stopping
            }
            if !stopping { await runner() }
        }
    }

    /// Stops queueing checkpoints (the writer's own, past ``writerPages``, remain until the store closes).
    func stop() {
        state.withLock {
            $0.stopping = true
            $0.runner = nil
        }
    }
}

/// The writer connection's log hook (`sqlite3_wal_hook`); `context` is its ``LogCheckpointer``.
private func writerLogHook(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, schema: UnsafePointer<CChar>?, pages: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    Unmanaged<LogCheckpointer>.fromOpaque(context).takeUnretainedValue()
        .writerCommitted(pages: Int(pages), connection: connection, schema: schema)
    return SQLITE_OK
}
