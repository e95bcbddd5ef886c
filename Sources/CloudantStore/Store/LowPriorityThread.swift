internal import CloudantBase
internal import Dispatch
internal import Foundation
internal import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

/// Runs jobs one at a time, in order, on a thread of its own at low priority (Linux `SCHED_BATCH` at nice
/// 19): background work that must not take a core from the writer.
///
/// Why: on two cores, the log checkpointer woken by a commit ran at the same priority as the writer and
/// the helpers preparing its next documents, and each wake-up could preempt the writer (an off-CPU profile
/// of the bulk-insert benchmark showed the writer runnable but not running for about a tenth of the run). A batch thread's wake-up
/// preempts nobody, and at nice 19 it gets about 1.5 % of a busy core against the writer's share, so the
/// checkpoints mostly fill the moments a core waits. Not `SCHED_IDLE`, which measured faster still: an idle
/// thread starves while every core is busy (a minute, under the test suite), and a checkpointer starved
/// in the middle of a checkpoint holds SQLite's checkpoint lock, so neither the writer's own checkpoint nor
/// any other could bound the log. One thread serves every store of the process and waits, blocked, when idle.
///
/// Where the priority cannot be lowered the thread runs at normal priority.
final class LowPriorityThread: Sendable {
    /// The thread every store's ``LogCheckpointer`` runs on.
    static let checkpoints = LowPriorityThread(name: "cloudant-log-checkpoints")

    private let name: String
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var started = false
    }

    init(name: String) {
        self.name = name
    }

    /// Queues `job`; the thread starts with the first job.
    func run(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            state.jobs.append(job)
            defer { state.started = true }
            return !state.started
        }
        if start {
            NamedThread.start(name) { [self] in loop() }
        }
        wake.signal()
    }

    /// Lowers the calling thread's priority for the rest of its life (its nice value cannot be lowered again
    /// without privileges): only for threads of our own, never one of Dispatch's or the cooperative pool's.
    static func lowerCurrentThreadPriority() {
        #if canImport(Glibc)
        // `SCHED_BATCH` (Linux's <linux/sched.h>; Glibc hides the name without _GNU_SOURCE): its wake-ups do
        // not preempt a running thread. Nice 19 (per thread on Linux): about 1.5 % of a busy core's time
        // against a thread at nice 0, so the work is slowed, never starved. Best effort: either may be
        // refused, leaving normal priority.
        let batchPolicy: Int32 = 3
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, batchPolicy, &parameters)
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        #endif
    }

    private func loop() {
        Self.lowerCurrentThreadPriority()
        while true {
            wake.wait()
            while let job = state.withLock({ state in state.jobs.isEmpty ? nil : state.jobs.removeFirst() }) { job() }
        }
    }
}
