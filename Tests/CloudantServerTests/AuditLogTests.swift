import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@testable import CloudantServer

/// The audit trail where files and clocks misbehave: a full disk, a clock set back across midnight, a reader
/// racing the writer, lines longer than a read, days that hold nothing. Real files in temporary folders; the
/// full disk is `/dev/full` in the place of a segment.
@Suite("Audit trail: full disks, clocks set back, readers racing the writer")
struct AuditLogTests {
    private func folder() -> String { NSTemporaryDirectory() + "cloudant-audit-log-" + UUID().uuidString }

    private func draft(_ user: String, db: String = "ward", doc: String = "obs-1", docs: [String] = []) -> AuditDraft {
        AuditDraft(
            time: .distantPast, user: user, action: "read", database: db, documentID: doc, documentIDs: docs,
            rev: "1-abc", address: "127.0.0.1", method: "GET", path: "/\(db)/\(doc)", status: 200)
    }

    private func segmentURL(_ folder: String, at date: Date) -> URL {
        AuditSegments(folder: folder).url(forDay: AuditTime.day(date))
    }

    /// Waits until the trail reports a failed write.
    private func waitForFailure(of trail: AuditTrail) async throws {
        try await waitUntil("the trail reporting a failed write") { trail.writeFailure != nil }
    }

    /// A trail whose segment of the day is `/dev/full`, where every write fails with `ENOSPC`.
    private func fullDiskTrail(in path: String, clock: ManualClock) throws -> (AuditTrail, URL) {
        let trail = try AuditTrail(folder: path, now: { clock.now })
        let segment = segmentURL(path, at: clock.now)
        try FileManager.default.createSymbolicLink(atPath: segment.path, withDestinationPath: "/dev/full")
        return (trail, segment)
    }

    private func append(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    @Test func aFullDiskNeitherStopsTheServerNorLosesOrDuplicatesEntriesOnceItHasRoomAgain() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        let (trail, segment) = try fullDiskTrail(in: path, clock: clock)
        for index in 0..<3 { trail.record(draft("alice", doc: "d\(index)")) }
        try await waitForFailure(of: trail)
        #expect(trail.writeFailure?.code == .auditTrailUnusable)

        // Room again: the queued entries go first, each once, and the chain holds.
        try FileManager.default.removeItem(at: segment)
        for index in 3..<5 { trail.record(draft("bob", doc: "d\(index)")) }
        await trail.flush()
        #expect(trail.writeFailure == nil)
        await trail.close()
        let report = try AuditTrail.verify(folder: path)
        #expect(report.isIntact && report.entries == 5 && report.firstSequence == 1 && report.lastSequence == 5)
        #expect(try AuditTrail.entries(in: path).map(\.documentID) == ["d0", "d1", "d2", "d3", "d4"])
    }

    @Test func closingWhileTheDiskIsFullReturnsAndSaysHowManyEntriesWereLost() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        let (trail, segment) = try fullDiskTrail(in: path, clock: clock)
        trail.record(draft("alice"))
        trail.record(draft("alice"))
        try await waitForFailure(of: trail)
        await trail.close()
        #expect(trail.writeFailure?.message.contains("2 entries") == true)
        try FileManager.default.removeItem(at: segment)
        // The folder is free again and nothing half-written was left.
        let next = try AuditTrail(folder: path, now: { clock.now })
        next.record(draft("bob"))
        await next.close()
        #expect(try AuditTrail.verify(folder: path).lastSequence == 1)
    }

    @Test func aClockSetBackAcrossMidnightKeepsFilingInTheNewerDaysSegment() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let midnight = try #require(AuditTime.parse("2026-11-19T00:00:00.000Z"))
        let clock = ManualClock.auditTrail()
        clock.set(midnight.addingTimeInterval(0.5))
        let trail = try AuditTrail(folder: path, now: { clock.now })
        trail.record(draft("alice", doc: "after"))
        await trail.flush()
        clock.set(midnight.addingTimeInterval(-0.5))
        trail.record(draft("alice", doc: "before"))
        await trail.close()
        // Opened again while the clock is still behind: the chain goes on in the newest segment.
        let reopened = try AuditTrail(folder: path, now: { clock.now })
        reopened.record(draft("alice", doc: "still-before"))
        await reopened.close()

        #expect(try AuditSegments(folder: path).days() == ["2026-11-19"])
        let report = try AuditTrail.verify(folder: path)
        #expect(report.isIntact && report.entries == 3)
        let listed = try AuditTrail.entries(in: path, since: midnight.addingTimeInterval(-60))
        #expect(listed.map(\.documentID) == ["after", "before", "still-before"])
    }

    @Test func aBatchBeingWrittenIsNotABreakWhileTheWriterRunsButIsOnceItHasStopped() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        let trail = try AuditTrail(folder: path, now: { clock.now })
        for index in 0..<3 { trail.record(draft("alice", doc: "d\(index)")) }
        await trail.flush()
        let segment = segmentURL(path, at: clock.now)
        try append(#"{"seq":4,"time":"2026-"#, to: segment)
        let live = try AuditTrail.verify(folder: path)
        #expect(live.isIntact && live.entries == 3)

        // The writer cuts the partial bytes off before its next batch.
        trail.record(draft("alice", doc: "d3"))
        await trail.flush()
        #expect(try AuditTrail.verify(folder: path).entries == 4)

        try append(#"{"seq":5,"#, to: segment)
        await trail.close()
        let stopped = try AuditTrail.verify(folder: path)
        #expect(stopped.firstBreak?.line == 5)
        #expect(stopped.firstBreak?.reason.contains("incomplete") == true)
    }

    @Test func anIncompleteLineInAnOlderDayIsNeitherRepairedNorForgiven() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        for _ in 0..<2 {
            let trail = try AuditTrail(folder: path, now: { clock.now })
            trail.record(draft("alice"))
            await trail.close()
            clock.advance(days: 1)
        }
        let older = segmentURL(path, at: clock.now.addingTimeInterval(-2 * 86_400))
        try append(#"{"seq":"#, to: older)
        let trail = try AuditTrail(folder: path, now: { clock.now })
        await trail.close()
        let report = try AuditTrail.verify(folder: path)
        #expect(report.firstBreak?.segment == older.lastPathComponent && report.firstBreak?.line == 2)
    }

    @Test func removingAMiddleDayOrTheFirstLinesOfTheOldestKeptDayIsCaught() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        for day in 0..<5 {
            let trail = try AuditTrail(folder: path, retentionDays: 3, now: { clock.now })
            for index in 0..<2 { trail.record(draft("alice", doc: "d\(day)-\(index)")) }
            await trail.close()
            clock.advance(days: 1)
        }
        let segments = AuditSegments(folder: path)
        let days = try segments.days()
        #expect(days.count == 4)
        #expect(try AuditTrail.verify(folder: path).anchored)

        let copy = folder()
        defer { try? FileManager.default.removeItem(atPath: copy) }
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        try FileManager.default.removeItem(at: AuditSegments(folder: copy).url(forDay: days[1]))
        let middle = try AuditTrail.verify(folder: copy)
        #expect(middle.firstBreak?.segment == AuditSegments.fileName(forDay: days[2]) && middle.firstBreak?.line == 1)

        let oldest = segments.url(forDay: days[0])
        let lines = try String(contentsOf: oldest, encoding: .utf8).split(separator: "\n")
        try (lines.dropFirst().joined(separator: "\n") + "\n").write(to: oldest, atomically: true, encoding: .utf8)
        let cut = try AuditTrail.verify(folder: path)
        #expect(cut.firstBreak?.segment == oldest.lastPathComponent && cut.firstBreak?.line == 1)
        #expect(cut.firstBreak?.reason.contains("sequence") == true)
    }

    @Test func retentionAnchorsOnTheLastEntryEvenWhenTheNewestExpiredDayIsEmpty() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        let first = try AuditTrail(folder: path, now: { clock.now })
        for _ in 0..<3 { first.record(draft("alice")) }
        await first.close()
        // A crash right after the next day's segment was created, before its first line.
        clock.advance(days: 1)
        #expect(FileManager.default.createFile(atPath: segmentURL(path, at: clock.now).path, contents: nil))

        clock.advance(days: 5)
        let later = try AuditTrail(folder: path, retentionDays: 2, now: { clock.now })
        later.record(draft("bob"))
        await later.close()
        #expect(try AuditSegments(folder: path).days() == [AuditTime.day(clock.now)])
        let report = try AuditTrail.verify(folder: path)
        #expect(report.isIntact && report.anchored && report.firstSequence == 4 && report.lastSequence == 4)
    }

    @Test func linesLongerThanOneReadAreListedVerifiedAndResumedFrom() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        let bulk = (0..<12_000).map { "patient-observation-\($0)" }
        let trail = try AuditTrail(folder: path, now: { clock.now })
        trail.record(draft("alice", doc: "small"))
        trail.record(draft("alice", doc: "_bulk_get", docs: bulk))
        await trail.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: segmentURL(path, at: clock.now).path)[.size] as? Int)
        #expect(size > 4 * AuditLineReader.chunkSize)

        // Resuming reads the last line back through growing windows.
        let reopened = try AuditTrail(folder: path, now: { clock.now })
        reopened.record(draft("bob", doc: "after"))
        await reopened.close()
        let report = try AuditTrail.verify(folder: path)
        #expect(report.isIntact && report.lastSequence == 3)
        let listed = try AuditTrail.entries(in: path, user: "alice")
        #expect(listed.map(\.documentIDs.count) == [0, 12_000])
    }

    @Test func sinceUntilUserAndDatabaseSelectAcrossDays() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        let start = clock.now
        for day in 0..<3 {
            let trail = try AuditTrail(folder: path, now: { clock.now })
            trail.record(draft("alice", db: "ward", doc: "a\(day)"))
            trail.record(draft("bob", db: "lab", doc: "b\(day)"))
            await trail.close()
            clock.advance(days: 1)
        }
        let day1 = start.addingTimeInterval(86_400)
        let day2 = start.addingTimeInterval(2 * 86_400)
        #expect(try AuditTrail.entries(in: path, since: day1).map(\.documentID) == ["a1", "b1", "a2", "b2"])
        #expect(try AuditTrail.entries(in: path, since: day1, until: day2).map(\.documentID) == ["a1", "b1"])
        #expect(try AuditTrail.entries(in: path, user: "bob", database: "lab").map(\.documentID) == ["b0", "b1", "b2"])
        #expect(try AuditTrail.entries(in: path, user: "bob", database: "ward").isEmpty)
        #expect(try AuditTrail.entries(in: path, until: start).isEmpty)
    }
}
