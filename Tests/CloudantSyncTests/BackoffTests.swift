import CloudantStore
import CloudantSync
import Foundation
import Testing

@Suite("Offline queue backoff and batching")
struct BackoffTests {
    @Test func delaysDoubleUpToTheMaximumAndJitterOnlyShortensThem() {
        let backoff = Backoff(initial: .seconds(1), maximum: .seconds(10), multiplier: 2, jitter: 0.5)
        #expect(backoff.delay(afterFailures: 1, random: 0) == .seconds(1))
        #expect(backoff.delay(afterFailures: 2, random: 0) == .seconds(2))
        #expect(backoff.delay(afterFailures: 4, random: 0) == .seconds(8))
        #expect(backoff.delay(afterFailures: 5, random: 0) == .seconds(10))
        #expect(backoff.delay(afterFailures: 500, random: 0) == .seconds(10))
        #expect(backoff.delay(afterFailures: 2, random: 1) == .seconds(1))
        #expect(backoff.delay(afterFailures: 0, random: 0) == .seconds(1))
    }

    @Test func aBatchStopsBeforeASecondRevisionOfTheSameDocument() {
        func entry(_ position: Int64, _ id: String) -> PendingWrite {
            PendingWrite(id: position, remote: "r", documentID: id, rev: "\(position)-a", action: .update, enqueuedAt: Date())
        }
        let batch = OfflineWriteQueue.batch([entry(1, "a"), entry(2, "b"), entry(3, "a"), entry(4, "c")])
        #expect(batch.map(\.id) == [1, 2])
    }
}
