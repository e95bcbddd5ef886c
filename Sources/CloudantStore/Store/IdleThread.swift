internal import Dispatch
internal import Foundation
internal import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

/// Runs jobs one at a time, in order, on a thread of its own that the kernel runs only on a core that
/// would otherwise idle (Linux `SCHED_IDLE`): background work that must not take a core from the writer.
///
/// Why: on two cores, the log checkpointer woken by a commit ran at the same priority as the writer and
/// the helpers preparing its next documents, and each wake-up could preempt the writer (an off-CPU profile
/// of P1 showed the writer runnable but not running for about a tenth of the run). At idle priority the
/// checkpoints fill the gaps the writer leaves (while it waits for a chunk, or for the caller) instead.
/// Should the checkpoints starve on a saturated machine, the writer's own checkpoint bounds the log (see
/// ``LogCheckpointer``). One thread serves every store of the process and waits, blocked, when idle.
///
/// Where `SCHED_IDLE` is not available the thread runs at normal priority.
final class IdleThread: Sendable {
    /// The thread every store's ``LogCheckpointer`` runs on.
    static let checkpoints = IdleThread(name: "cloudant-log-checkpoints")

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
            let thread = Thread { [self] in loop() }
            thread.name = name
            thread.start()
        }
        wake.signal()
    }

    /// Puts the calling thread at idle priority for the rest of its life (it cannot be raised again without
    /// privileges): only for threads of our own, never one of Dispatch's or the cooperative pool's.
    static func lowerCurrentThreadToIdlePriority() {
        #if canImport(Glibc)
        // `SCHED_IDLE` (Linux's <linux/sched.h>; Glibc hides the name without _GNU_SOURCE). Best effort: a
        // kernel without it leaves the thread at normal priority.
        let idlePolicy: Int32 = 5
        var parameters = sched_param(sched_priority: 0)
        _ = sched_setscheduler(0, idlePolicy, &parameters)
        #endif
    }

    private func loop() {
        Self.lowerCurrentThreadToIdlePriority()
        while true {
            wake.wait()
            while let job = state.withLock({ state in state.jobs.isEmpty ? nil : state.jobs.removeFirst() }) { job() }
        }
    }
}
