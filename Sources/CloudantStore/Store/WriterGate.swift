internal import CloudantCore
internal import Synchronization

/// Decides where a write transaction waits for SQLite's single writer.
///
/// An uncontended write runs on the calling thread: the transaction is short and never awaits, so blocking
/// briefly is cheaper than a hop to another thread and back (measured: the hop dominated single-document
/// writes). A write that finds another one in flight would block its thread until that one commits; run on a
/// cooperative-pool thread (two on two cores), a few such waits stall every task of the process, reads
/// included. So a contended write waits on `waiting`, a thread of the store's own (``BlockingJobs``: not a
/// Dispatch queue, whose threads on Linux are the cooperative pool's), and its task is suspended meanwhile.
/// One thread is enough: the writes it runs wait for the same SQLite writer, one after the other.
///
/// A long write (a large `_bulk_docs` batch, whose transaction also waits for the chunks its helpers prepare)
/// goes to that thread even uncontended: run on a cooperative thread, it held that thread for the whole
/// transaction, seconds on a loaded machine, while its helper held the other.
final class WriterGate: Sendable {
    private let inFlight = Atomic<Int>(0)
    private let waiting = BlockingJobs(name: "cloudant-writes", width: 1)

    /// Runs `body` (which blocks while it waits for the writer) where waiting blocks no cooperative thread;
    /// a `long` one always on the gate's own thread.
    func run<T: Sendable>(long: Bool = false, _ body: @escaping @Sendable () throws -> T) async throws -> T {
        let before = inFlight.wrappingAdd(1, ordering: .acquiring).oldValue
        defer { inFlight.wrappingSubtract(1, ordering: .releasing) }
        if before == 0, !long { return try body() }
        return try await waiting.run(body)
    }

    /// How many writes are running or waiting (for tests).
    var writesInFlight: Int { inFlight.load(ordering: .relaxed) }
}
