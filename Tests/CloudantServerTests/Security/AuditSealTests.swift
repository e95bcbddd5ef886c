import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@testable import CloudantServer

/// What the hash chain alone cannot show, and the signed head and per-day seals do: lines cut off the end, the
/// newest day removed, the oldest removed behind a forged anchor; and an encrypted server's trail is encrypted.
@Suite("Audit trail: sealed days, signed head, encrypted lines")
struct AuditSealTests {
    static let keys = AuditKeys(secret: Array(repeating: 7, count: 32))

    private func folder() -> String { NSTemporaryDirectory() + "cloudant-audit-seal-" + UUID().uuidString }

    private func draft(_ index: Int, at time: Date) -> AuditDraft {
        AuditDraft(
            time: time, user: "alice", action: "read", database: "ward", documentID: "obs-\(index)", documentIDs: [],
            rev: nil, address: "127.0.0.1", method: "GET", path: "/ward/obs-\(index)", status: 200,
            authentication: "authenticated")
    }

    /// Three days of five entries each, written by a server with `keys`.
    private func threeDays(in path: String, keys: AuditKeys = keys, retentionDays: Int? = nil) async throws -> ManualClock {
        let clock = ManualClock.auditTrail()
        for day in 0..<3 {
            let trail = try AuditTrail(folder: path, retentionDays: retentionDays, keys: keys, now: { clock.now })
            for index in 0..<5 { trail.record(draft(day * 5 + index, at: clock.now)) }
            await trail.close()
            clock.advance(days: 1)
        }
        return clock
    }

    private func segmentURL(_ path: String, _ pick: ([String]) -> String?) throws -> URL {
        let segments = AuditSegments(folder: path)
        return segments.url(forDay: try #require(pick(try segments.days())))
    }

    /// Keeps the first `count` lines of a segment and drops the rest, as someone cutting evidence would.
    private func cut(_ segment: URL, keepingLines count: Int) throws {
        let lines = try String(contentsOf: segment, encoding: .utf8).split(separator: "\n")
        try (lines.prefix(count).joined(separator: "\n") + "\n").write(to: segment, atomically: true, encoding: .utf8)
    }

    @Test func anUntouchedSealedTrailVerifiesWithTheServersKeys() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await threeDays(in: path)
        let report = try AuditTrail.verify(folder: path, keys: Self.keys)
        #expect(report.isIntact && report.signed && report.entries == 15, "\(report)")
        // Each day after the first begins with the seal of the day before.
        let entries = try AuditTrail.entries(in: path)
        #expect(entries.compactMap(\.seal).map(\.lines) == [5, 5])
        #expect(entries[5].seal?.hash == entries[4].hash)
    }

    @Test func deletingTheNewestDayIsCaught() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await threeDays(in: path)
        try FileManager.default.removeItem(at: try segmentURL(path) { $0.last })
        #expect(try AuditTrail.verify(folder: path).isIntact, "the chain alone does not see it")
        let report = try AuditTrail.verify(folder: path, keys: Self.keys)
        #expect(report.firstBreak?.segment == "head.json", "\(report)")
    }

    @Test func cuttingTheLastLinesOfTheNewestDayIsCaught() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await threeDays(in: path)
        try cut(try segmentURL(path) { $0.last }, keepingLines: 3)
        let report = try AuditTrail.verify(folder: path, keys: Self.keys)
        #expect(report.firstBreak?.segment == "head.json" && report.firstBreak?.reason.contains("15") == true, "\(report)")
        // A server that opens the cut trail keeps the evidence, and verification keeps reporting it.
        let reopened = try AuditTrail(folder: path, keys: Self.keys)
        await reopened.close()
        let after = try AuditTrail.verify(folder: path, keys: Self.keys)
        #expect(after.firstBreak?.segment.hasPrefix("tamper-") == true, "\(after)")
    }

    @Test func cuttingTheLastLinesOfAnEarlierDayBreaksItsSeal() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await threeDays(in: path)
        try cut(try segmentURL(path) { $0.first }, keepingLines: 4)
        let report = try AuditTrail.verify(folder: path, keys: Self.keys)
        #expect(report.firstBreak != nil && report.entries == 4, "\(report)")
    }

    @Test func deletingTheOldestDayBehindAForgedAnchorIsCaught() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = try await threeDays(in: path)
        let first = try AuditTrail.entries(in: path)[4]
        try FileManager.default.removeItem(at: try segmentURL(path) { $0.first })
        let forged: JSONValue = ["seq": .number(JSONNumber(first.sequence)), "hash": .string(first.hash), "pruned_through": "2026-11-18"]
        try Data(forged.jsonBytes()).write(to: URL(fileURLWithPath: path).appendingPathComponent("anchor.json"))
        #expect(try AuditTrail.verify(folder: path).isIntact, "the chain alone does not see it")
        let report = try AuditTrail.verify(folder: path, keys: Self.keys)
        #expect(report.firstBreak?.segment == "anchor.json", "\(report)")
        // Retention's own anchors are signed and verify.
        let kept = folder()
        defer { try? FileManager.default.removeItem(atPath: kept) }
        let clock = try await threeDays(in: kept, retentionDays: 1)
        let trail = try AuditTrail(folder: kept, retentionDays: 1, keys: Self.keys, now: { clock.now })
        trail.record(draft(99, at: clock.now))
        await trail.close()
        let retained = try AuditTrail.verify(folder: kept, keys: Self.keys)
        #expect(retained.isIntact && retained.anchored, "\(retained)")
    }

    @Test func anEncryptedServersTrailIsEncryptedAndReadsBackWithItsKey() async throws {
        let path = folder()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let keys = AuditKeys(secret: Array(repeating: 7, count: 32), encryptionKey: DatabaseKey.random())
        _ = try await threeDays(in: path, keys: keys)
        for day in try AuditSegments(folder: path).days() {
            let text = try String(contentsOf: AuditSegments(folder: path).url(forDay: day), encoding: .utf8)
            #expect(!text.contains("obs-") && !text.contains("alice") && !text.contains("/ward"), "\(text.prefix(200))")
        }
        #expect(try AuditTrail.entries(in: path, keys: keys).map(\.documentID).last == "obs-14")
        #expect(try AuditTrail.verify(folder: path, keys: keys).isIntact)
        #expect(try AuditTrail.entries(in: path).isEmpty, "without the key nothing reads")
        #expect(try AuditTrail.verify(folder: path, keys: Self.keys).firstBreak?.reason.contains("encrypted") == true)
    }
}
