@testable import CloudantStore
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The low-priority thread for background work")
struct LowPriorityThreadTests {
    @Test("Jobs run one at a time, in the order queued, at low priority")
    func jobsRunInOrderAtLowPriority() async throws {
        let thread = LowPriorityThread(name: "low-priority-thread-test")
        let order = Mutex<[Int]>([])
        let policies = Mutex<Set<Int32>>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<200 {
            thread.run {
                order.withLock { $0.append(index) }
                #if canImport(Glibc)
                policies.withLock { _ = $0.insert(sched_getscheduler(0) * 100 + getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)) }
                #endif
                if index == 199 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(order.withLock { $0 } == Array(0..<200))
        #if canImport(Glibc)
        // SCHED_BATCH (3 in <linux/sched.h>) at nice 19.
        #expect(policies.withLock { $0 } == [319])
        #endif
    }
}
