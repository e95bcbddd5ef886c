@testable import CloudantStore
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("The idle-priority thread for background work")
struct IdleThreadTests {
    @Test("Jobs run one at a time, in the order queued, at idle priority")
    func jobsRunInOrderAtIdlePriority() async throws {
        let thread = IdleThread(name: "idle-thread-test")
        let order = Mutex<[Int]>([])
        let policies = Mutex<Set<Int32>>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<200 {
            thread.run {
                order.withLock { $0.append(index) }
                #if canImport(Glibc)
                policies.withLock { _ = $0.insert(sched_getscheduler(0)) }
                #endif
                if index == 199 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(order.withLock { $0 } == Array(0..<200))
        #if canImport(Glibc)
        // SCHED_IDLE is 5 in <linux/sched.h>.
        #expect(policies.withLock { $0 } == [5])
        #endif
    }
}
