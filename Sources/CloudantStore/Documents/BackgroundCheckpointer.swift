internal import CloudantBase
internal import Foundation
internal import GRDB

/// Copies a bulk load's log into the database file on a thread and connection of its own, so the writer
/// does not stop for it.
///
/// SQLite checkpoints on the connection that commits once the log is long enough: the writer then copies
/// the log's pages into the file and waits for them to reach the disk (`fdatasync`), 46 times and 4.2 s in
/// all on a 1M-record health import, with the parser waiting for it. Here a passive checkpoint runs every
/// few milliseconds beside the writer (it takes no lock a writer or a reader needs), so when the writer's
/// own checkpoint comes due, nearly everything is already in the file and synced.
///
/// It runs at normal priority: at Linux's idle priority the 1M-record import took 30.0–30.7 s instead of
/// 31.4–33.9 s, but an idle thread starves while both cores are busy (in a test under the suite's load no
/// checkpoint ran for a minute) and holds SQLite's checkpoint lock meanwhile; at nice 19 (see
/// ``LowPriorityThread``) the import gained nothing (32.4–33.9 s against 31.2 s).
final class BackgroundCheckpointer: @unchecked Sendable {
    // Unchecked: `stopping` and `finished` are read and written only with `condition` locked; the queue is
    // used by the checkpointing thread alone until `stop()` has seen that thread finish.
    private let queue: DatabaseQueue
    private let condition = NSCondition()
    private var stopping = false
    private var finished = false
    /// The log size past which the checkpointer makes the writer wait so the log can start over: a bound for
    /// when readers keep the log from starting over at the writer's own checkpoints (every 32 MB, see
    /// `bulkLoading`).
    static let logCap = 512 << 20

    /// ``logCap`` in log frames (pages) of this file.
    private let capFrames: Int

    /// Opens a connection of its own to the file at `path` and starts checkpointing.
    init(path: String, configuration: Configuration) throws {
        queue = try DatabaseQueue(path: path, configuration: configuration)
        capFrames = Self.logCap / (try queue.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } ?? 4096)
        NamedThread.start("cloudant-checkpointer") { [self] in run() }
    }

    private func run() {
        while true {
            // A failed checkpoint (busy, or the disk full) is left to the writer's own, which reports it.
            _ = try? queue.inDatabase { db in
                // Passive: copies what is committed without waiting for the writer or readers. The log starts
                // over only when a checkpoint has caught up with it as a transaction begins; should the writer
                // never leave it the time to, a log grown past the cap is copied and started over while the
                // writer waits (its busy timeout), which bounds it.
                let logFrames = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")?[1] as Int? ?? 0
                if logFrames > capFrames { try db.execute(sql: "PRAGMA wal_checkpoint(RESTART)") }
            }
            condition.lock()
            if !stopping { _ = condition.wait(until: Date(timeIntervalSinceNow: 0.02)) }
            let done = stopping
            condition.unlock()
            if done { break }
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops checkpointing and waits for the last checkpoint to end.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
        try? queue.close()
    }
}
