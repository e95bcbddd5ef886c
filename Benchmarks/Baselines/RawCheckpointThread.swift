import CSQLite
import Foundation

/// For a raw SQLite baseline: what the store does with its log (`LogCheckpointer`), done with the C API. The
/// writer's commits wake a thread, once per 1,000 new pages of log, that runs a passive checkpoint on a
/// connection of its own; the writer checkpoints by itself only past 16,384 pages. So the store's way of
/// checkpointing can be told apart from the rest of its cost.
final class RawCheckpointThread: @unchecked Sendable {
    // Unchecked: `requested` and `stopping` are used only with `condition` locked; `connection` only by the
    // thread until `stop()` has seen it finish.
    private let condition = NSCondition()
    private var requested = false
    private var stopping = false
    private var finished = false
    private var connection: OpaquePointer?
    /// The log's size at the last wake-up (the writer's hook alone uses it).
    fileprivate var pagesAtLastWake: Int32 = 0

    /// Installs the hook on `writer` and starts the thread on its own connection to `path`.
    init(path: String, writer: OpaquePointer?) throws {
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw BenchmarkError.sqlite("cannot open the checkpointing connection")
        }
        sqlite3_wal_hook(writer, rawCheckpointHook, Unmanaged.passUnretained(self).toOpaque())
        let thread = Thread { [self] in run() }
        thread.start()
    }

    fileprivate func wake() {
        condition.lock()
        requested = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while true {
            while !requested && !stopping { condition.wait() }
            if stopping { break }
            requested = false
            condition.unlock()
            sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            condition.lock()
        }
        sqlite3_close_v2(connection)
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Stops the thread (call before the writer closes: the hook points at this object).
    func stop(writer: OpaquePointer?) {
        sqlite3_wal_hook(writer, nil, nil)
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}

private func rawCheckpointHook(
    context: UnsafeMutableRawPointer?, connection: OpaquePointer?, schema: UnsafePointer<CChar>?, pages: Int32
) -> Int32 {
    guard let context else { return SQLITE_OK }
    let checkpointer = Unmanaged<RawCheckpointThread>.fromOpaque(context).takeUnretainedValue()
    if pages >= 16_384 {
        sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        return SQLITE_OK
    }
    if pages < checkpointer.pagesAtLastWake { checkpointer.pagesAtLastWake = 0 }
    if pages - checkpointer.pagesAtLastWake >= 1_000 {
        checkpointer.pagesAtLastWake = pages
        checkpointer.wake()
    }
    return SQLITE_OK
}
