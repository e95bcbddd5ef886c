import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Blocking jobs run on threads of their own")
struct BlockingJobsTests {
    @Test func jobsThatBlockLeaveEveryCooperativeThreadToTheTasks() async throws {
        // Four blocked jobs per core: on Dispatch's concurrent queues, which on Linux share the cooperative
        // pool's threads (one per core), they would hold every one of them and the task group below could never
        // run until the gate opened.
        let width = ProcessInfo.processInfo.activeProcessorCount * 4
        let jobs = BlockingJobs(name: "blocking-jobs-test", width: width)
        let gate = Gate()
        let blocked = (0..<width).map { _ in Task { await jobs.run { gate.wait() } } }
        try await waitUntil("every job holding a thread") { jobs.threads == width }
        let sum = await withTaskGroup(of: Int.self) { group in
            for value in 1...100 { group.addTask { value } }
            return await group.reduce(0, +)
        }
        #expect(sum == 5_050)
        #expect(jobs.threads == width, "the jobs were still blocked while the tasks ran")
        gate.open()
        for task in blocked { await task.value }
        try await waitUntil("the threads ended with the queue") { jobs.threads == 0 }
    }

    @Test func jobsPastTheWidthWaitTheirTurnInOrder() async throws {
        let jobs = BlockingJobs(name: "blocking-jobs-order", width: 1)
        let order = Order()
        let gate = Gate()
        let first = Task { await jobs.run { gate.wait() } }
        // Its thread has taken it (nothing queued) and is held by it.
        try await waitUntil("the first job running") { jobs.threads == 1 && jobs.queued == 0 }
        // Queued from here, one after the other: tasks submitting each their own would queue in whatever
        // order they happened to run.
        for index in 0..<50 { jobs.submit { order.append(index) } }
        #expect(jobs.queued == 50)
        #expect(order.values.isEmpty)
        gate.open()
        await first.value
        try await waitUntil("every queued job ran") { order.values.count == 50 }
        // One thread at most: the jobs ran one after the other in the order they were queued.
        #expect(order.values == Array(0..<50))
    }

    @Test func aJobsErrorReachesTheTaskThatWaitedForIt() async throws {
        struct Refused: Error {}
        let jobs = BlockingJobs(name: "blocking-jobs-error", width: 2)
        await #expect(throws: Refused.self) { try await jobs.run { () throws -> Int in throw Refused() } }
        #expect(try await jobs.run { () throws -> Int in 7 } == 7)
    }
}

/// The order jobs ran in.
private final class Order: @unchecked Sendable {
    // `lock` protects `recorded`.
    private let lock = NSLock()
    private var recorded: [Int] = []

    func append(_ value: Int) { lock.withLock { recorded.append(value) } }

    var values: [Int] { lock.withLock { recorded } }
}
