import CloudantCore
@testable import CloudantServer
import Foundation
import Testing

/// The scheduler's state rules (`couch_replicator_scheduler:consecutive_crashes/2`, `job_summary/2`), without a
/// network.
@Suite("Replication job states")
struct ReplicationJobRecordTests {
    private static let start = Date(timeIntervalSince1970: 1_700_000_000)

    private static func record() throws -> ReplicationJobRecord {
        let spec = try ReplicationSpec(["source": "http://u:p@127.0.0.1:5984/a", "target": "b", "continuous": true])
        return ReplicationJobRecord(id: "abc+continuous", spec: spec, database: "_replicator", documentID: "d", user: "u", now: start)
    }

    @Test func crashesInARowCountUntilAHealthyRun() throws {
        var record = try Self.record()
        record.record(.started, at: Self.start.addingTimeInterval(1))
        record.record(.crashed(reason: "down"), at: Self.start.addingTimeInterval(2))
        record.record(.crashed(reason: "down"), at: Self.start.addingTimeInterval(40))
        #expect(record.consecutiveCrashes(healthThreshold: 120) == 2)
        #expect(record.summary(healthThreshold: 120).state == "crashing")
        #expect(record.summary(healthThreshold: 120).info == ["error": "down"])
        // Started again and ran longer than the threshold before crashing: the streak starts over.
        record.record(.started, at: Self.start.addingTimeInterval(100))
        record.isRunning = true
        #expect(record.summary(healthThreshold: 120).state == "running")
        record.isRunning = false
        record.record(.crashed(reason: "down"), at: Self.start.addingTimeInterval(400))
        #expect(record.consecutiveCrashes(healthThreshold: 120) == 0)
        record.record(.crashed(reason: "down"), at: Self.start.addingTimeInterval(410))
        #expect(record.consecutiveCrashes(healthThreshold: 120) == 1)
    }

    @Test func aStopRightAfterAStartEndsTheStreakAndIsPending() throws {
        var record = try Self.record()
        record.record(.crashed(reason: "x"), at: Self.start.addingTimeInterval(1))
        record.record(.started, at: Self.start.addingTimeInterval(2))
        record.record(.stopped, at: Self.start.addingTimeInterval(3))
        #expect(record.consecutiveCrashes(healthThreshold: 120) == 0)
        #expect(record.summary(healthThreshold: 120).state == "pending")
    }

    @Test func historyKeepsTheTwentyNewestEventsAndReportsNoCredentials() throws {
        var record = try Self.record()
        for second in 1...30 { record.record(.crashed(reason: "r"), at: Self.start.addingTimeInterval(Double(second))) }
        #expect(record.history.count == 20)
        let job = record.jobJSON(node: "nonode@nohost")
        #expect(job["source"] == "http://127.0.0.1:5984/a/")
        #expect(job["start_time"] == "2023-11-14T22:13:20Z")
        #expect(job["history"]?.arrayValue?.first?["type"] == "crashed")
    }

    @Test func backoffDoublesFromThirtySecondsUpToTwoToTheTenth() {
        let settings = ReplicatorSettings()
        #expect(settings.backoff(afterCrashes: 1) == .seconds(30))
        #expect(settings.backoff(afterCrashes: 2) == .seconds(60))
        #expect(settings.backoff(afterCrashes: 11) == .seconds(30 * 1024))
        #expect(settings.backoff(afterCrashes: 50) == .seconds(30 * 1024))
    }
}
