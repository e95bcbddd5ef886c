internal import Foundation

/// Jobs that block (waiting for SQLite's writer, for connections to close, deriving a password hash), run on
/// threads of their own: at most ``width`` at once, the rest queued in order.
///
/// Why not Dispatch: on Linux, Swift's cooperative executor runs its tasks on Dispatch's global concurrent
/// queue, one thread per core, and every concurrent queue a program creates hands its work to those same
/// threads. A job that blocks on `DispatchQueue.global()` or on a concurrent queue of its own therefore takes a
/// thread that every task of the process needs; once each of them waits for something only a suspended task
/// can give back (a GRDB reader is released when its task resumes), nothing runs again. A thread here starts
/// when a job finds no idle one and fewer than ``width`` at work, and ends once it has waited ``linger`` for a
/// job in vain, so a burst reuses its threads and an idle program keeps none.
package final class BlockingJobs: @unchecked Sendable {
    /// The most jobs running at once.
    package let width: Int
    /// How long a thread without work waits for a job before it ends.
    package let linger: Double
    private let name: String
    // Unchecked Sendable: `condition` protects the four properties after it.
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var head = 0
    private var running = 0
    private var idle = 0

    /// Jobs run on threads named `name` (Linux keeps its first 15 bytes), at most `width` at once; a thread
    /// ends after `linger` seconds without work.
    package init(name: String, width: Int, linger: Double = 1) {
        self.name = name
        self.width = max(1, width)
        self.linger = linger
    }

    /// Queues `job`; it runs on one of the jobs' threads.
    package func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        queue.append(job)
        let start = queue.count - head > idle && running < width
        if start { running += 1 }
        condition.signal()
        condition.unlock()
        guard start else { return }
        NamedThread.start(name) { [self] in drain() }
    }

    /// Runs `work` on one of the jobs' threads and returns what it returns; the calling task is suspended
    /// meanwhile, its thread free for other tasks.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            submit { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Runs `work`, which cannot fail, on one of the jobs' threads.
    package func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            submit { continuation.resume(returning: work()) }
        }
    }

    /// Jobs waiting for a thread (for tests).
    package var queued: Int {
        condition.lock()
        defer { condition.unlock() }
        return queue.count - head
    }

    /// Threads alive, at work or lingering (for tests).
    package var threads: Int {
        condition.lock()
        defer { condition.unlock() }
        return running
    }

    /// One thread's life: queued jobs, in order, until none came for `linger`.
    private func drain() {
        condition.lock()
        while true {
            if head < queue.count {
                let job = queue[head]
                head += 1
                if head == queue.count {
                    queue.removeAll(keepingCapacity: true)
                    head = 0
                }
                condition.unlock()
                job()
                condition.lock()
                continue
            }
            idle += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: linger))
            idle -= 1
            if !woken && head == queue.count {
                running -= 1
                condition.unlock()
                return
            }
        }
    }
}
