import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@testable import CloudantServer

/// The audit trail's file format and chain, on real files: what verification catches and what survives a crash.
@Suite("Audit trail: append-only, hash-chained, verifiable")
struct AuditTrailTests {
    private func folder() -> String { NSTemporaryDirectory() + "cloudant-audit-" + UUID().uuidString }

    private func draft(_ user: String, _ action: String = "read", db: String = "ward", doc: String? = "obs-1", at time: Date = Date())
        -> AuditDraft
    {
        AuditDraft(
            time: time, user: user, action: action, database: db, documentID: doc, documentIDs: [], rev: "1-abc",
            address: "127.0.0.1", method: "GET", path: "/\(db)/\(doc ?? "")", status: 200)
    }

    /// Rewrites one line of the only (or named) segment with `edit`.
    private func editLine(_ number: Int, in folder: String, _ edit: (String) -> String?) throws {
        let segment = try #require(try AuditSegments(folder: folder).days().first)
        let url = AuditSegments(folder: folder).url(forDay: segment)
        var lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let edited = edit(lines[number - 1]) { lines[number - 1] = edited } else { lines.remove(at: number - 1) }
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    private func writeTrail(_ count: Int, in folder: String) async throws {
        let trail = try AuditTrail(folder: folder)
        for index in 0..<count { trail.record(draft(index.isMultiple(of: 2) ? "alice" : "bob", doc: "obs-\(index)")) }
        await trail.close()
    }

    @Test func anUntouchedTrailVerifiesAndReadsBackWithFilters() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await writeTrail(10, in: path)
        let report = try AuditTrail.verify(folder: path)
        #expect(report.isIntact && report.entries == 10 && report.firstSequence == 1 && report.lastSequence == 10)
        #expect(try AuditTrail.entries(in: path).count == 10)
        #expect(try AuditTrail.entries(in: path, user: "bob").map(\.documentID) == ["obs-1", "obs-3", "obs-5", "obs-7", "obs-9"])
        #expect(try AuditTrail.entries(in: path, database: "other").isEmpty)
        #expect(try AuditTrail.entries(in: path, since: Date().addingTimeInterval(60)).isEmpty)
        // A second run continues the chain where the first stopped.
        try await writeTrail(3, in: path)
        #expect(try AuditTrail.verify(folder: path).lastSequence == 13)
    }

    @Test func editingOneByteOfOneLineIsCaughtAtThatLine() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await writeTrail(10, in: path)
        try editLine(4, in: path) { $0.replacingOccurrences(of: #""user":"bob""#, with: #""user":"bot""#) }
        let report = try AuditTrail.verify(folder: path)
        #expect(report.firstBreak?.line == 4)
        #expect(report.firstBreak?.reason.contains("edited") == true)
        #expect(report.entries == 3)
    }

    @Test func aLineRemovedInsertedOrMovedIsCaught() async throws {
        for tamper in ["remove", "duplicate", "swap"] {
            let path = folder()
            defer { try? FileManager.default.removeItem(atPath: path) }
            try await writeTrail(6, in: path)
            var saved = ""
            switch tamper {
            case "remove": try editLine(3, in: path) { _ in nil }
            case "duplicate": try editLine(3, in: path) { line in line + "\n" + line }
            default:
                try editLine(2, in: path) { line in saved = line; return nil }
                try editLine(3, in: path) { line in line + "\n" + saved }
            }
            let report = try AuditTrail.verify(folder: path)
            #expect(!report.isIntact, "\(tamper) went unnoticed")
            #expect(report.firstBreak?.reason.contains("sequence") == true, "\(tamper): \(report)")
        }
    }

    @Test func retentionRemovesWholeOldDaysAndTheChainStillVerifiesButNotWhenDaysAreRemovedByHand() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let clock = ManualClock.auditTrail()
        for day in 0..<5 {
            let trail = try AuditTrail(folder: path, retentionDays: 2, now: { clock.now })
            for index in 0..<3 { trail.record(draft("alice", doc: "d\(day)-\(index)", at: clock.now)) }
            await trail.close()
            clock.advance(days: 1)
        }
        let days = try AuditSegments(folder: path).days()
        #expect(days.count <= 3)
        let report = try AuditTrail.verify(folder: path)
        #expect(report.isIntact && report.anchored && report.lastSequence == 15)
        #expect(try AuditTrail.entries(in: path).first?.sequence == report.firstSequence)

        // Removing the oldest kept day by hand, or its first line, is not retention: it is caught.
        try FileManager.default.removeItem(at: AuditSegments(folder: path).url(forDay: days[0]))
        #expect(try AuditTrail.verify(folder: path).firstBreak != nil)
    }

    @Test func aLineACrashCutShortIsRemovedAndTheChainGoesOn() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await writeTrail(4, in: path)
        let segments = AuditSegments(folder: path)
        let url = segments.url(forDay: try #require(try segments.days().first))
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"seq":5,"time":"2026-"#.utf8))
        try handle.close()
        #expect(try AuditTrail.verify(folder: path).firstBreak?.reason.contains("incomplete") == true)
        try await writeTrail(2, in: path)
        let report = try AuditTrail.verify(folder: path)
        #expect(report.isIntact && report.lastSequence == 6)
    }

    @Test func manyConcurrentRecordersKeepOneUnbrokenChainWithEveryEntry() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trail = try AuditTrail(folder: path)
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for index in 0..<250 { trail.record(self.draft("u\(worker)", doc: "d\(index)")) }
                }
            }
        }
        await trail.flush()
        #expect(try AuditTrail.verify(folder: path).entries == 2_000)
        await trail.close()
        let entries = try AuditTrail.entries(in: path)
        #expect(Set(entries.map { "\($0.user ?? "")/\($0.documentID ?? "")" }).count == 2_000)
    }

    @Test func aSecondWriterOnTheSameFolderIsRefusedUntilTheFirstCloses() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let first = try AuditTrail(folder: path)
        #expect(throws: CloudantError.self) { _ = try AuditTrail(folder: path) }
        await first.close()
        let second = try AuditTrail(folder: path)
        await second.close()
    }
}
