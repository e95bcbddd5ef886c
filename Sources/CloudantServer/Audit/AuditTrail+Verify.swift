public import CloudantCore
internal import Foundation

/// What checking an audit trail's chain found.
public struct AuditChainReport: Sendable, Hashable {
    /// Where the chain first breaks.
    public struct Break: Sendable, Hashable {
        /// The segment file's name.
        public var segment: String
        /// The 1-based line number in it.
        public var line: Int
        /// What is wrong there.
        public var reason: String
    }

    /// Entries that checked out.
    public var entries: Int
    /// The first sequence checked (nil when the trail is empty).
    public var firstSequence: Int64?
    /// The last sequence checked (nil when the trail is empty).
    public var lastSequence: Int64?
    /// Whether the trail starts after entries retention removed (an anchor).
    public var anchored: Bool
    /// The first break, or nil when the whole chain holds.
    public var firstBreak: Break?

    /// Whether the whole chain holds.
    public var isIntact: Bool { firstBreak == nil }

    /// The report as JSON (`cloudant audit verify` prints it).
    public var json: JSONValue {
        var object: JSONObject = [
            "ok": .bool(isIntact), "entries": .number(JSONNumber(entries)),
            "first_seq": firstSequence.map { .number(JSONNumber($0)) } ?? .null,
            "last_seq": lastSequence.map { .number(JSONNumber($0)) } ?? .null, "anchored": .bool(anchored),
        ]
        if let firstBreak {
            object["segment"] = .string(firstBreak.segment)
            object["line"] = .number(JSONNumber(firstBreak.line))
            object["reason"] = .string(firstBreak.reason)
        }
        return .object(object)
    }
}

extension AuditTrail {
    /// Checks the chain of the trail in `folder`, from the anchor retention left (or the first entry ever) to
    /// the last line: every line's hash must be the hash of its content, every line must name the previous
    /// line's hash and follow its sequence, and segments must follow one another. A line edited, removed,
    /// inserted or moved, a segment removed by hand, or the oldest lines cut off all break it.
    ///
    /// An incomplete last line in the newest segment is a break only when no writer has the folder open: with
    /// one, it is a batch being written (and a crash's remnant is cut off when the trail next opens).
    ///
    /// ```swift
    /// let report = try AuditTrail.verify(folder: dataFolder + "/_audit")
    /// if let broken = report.firstBreak { print(broken.segment, broken.line, broken.reason) }
    /// ```
    /// - Throws: `CloudantError` `.notFound` when there is no such folder, `.auditTrailUnusable`
    ///   when it cannot be read.
    public static func verify(folder: String) throws -> AuditChainReport {
        let segments = AuditSegments(folder: folder)
        // A mistyped folder must not read as an intact (empty) trail.
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CloudantError(.notFound, "There is no audit trail in '\(folder)'.")
        }
        let anchor = try segments.anchor()
        var report = AuditChainReport(entries: 0, anchored: anchor.sequence > 0)
        var expected = (sequence: anchor.sequence + 1, previous: anchor.hash)
        do {
            let days = try segments.days()
            for day in days {
                let name = AuditSegments.fileName(forDay: day)
                let scan = try AuditLineReader.forEachLine(in: segments.url(forDay: day)) { number, bytes in
                    do throws(BrokenLink) {
                        let entry = try link(bytes, inSegmentOf: day, expected: expected)
                        report.entries += 1
                        report.firstSequence = report.firstSequence ?? entry.sequence
                        report.lastSequence = entry.sequence
                        expected = (entry.sequence + 1, entry.hash)
                        return true
                    } catch {
                        report.firstBreak = .init(segment: name, line: number, reason: error.reason)
                        return false
                    }
                }
                if report.firstBreak != nil { return report }
                if scan.torn, day != days.last || !segments.writerIsActive() {
                    report.firstBreak = .init(segment: name, line: scan.lines + 1, reason: "the last line is incomplete")
                    return report
                }
            }
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not read the audit trail in '\(folder)'.", underlying: error)
        }
        return report
    }

    /// Why a line does not continue the chain.
    private struct BrokenLink: Error {
        var reason: String
    }

    /// The entry a line holds, when it continues the chain.
    private static func link(
        _ bytes: ArraySlice<UInt8>, inSegmentOf day: String, expected: (sequence: Int64, previous: String)
    ) throws(BrokenLink) -> AuditEntry {
        let entry: AuditEntry
        do {
            entry = try AuditLine.parse(bytes)
        } catch .hashMismatch {
            throw BrokenLink(reason: "the line's content does not match its hash (edited)")
        } catch {
            throw BrokenLink(reason: "the line is not an audit entry")
        }
        guard entry.sequence == expected.sequence else {
            throw BrokenLink(reason: "sequence \(entry.sequence) where \(expected.sequence) was due (lines removed, inserted or moved)")
        }
        guard entry.previousHash == expected.previous else {
            throw BrokenLink(reason: "the line does not follow the previous entry's hash")
        }
        // An entry may sit in a later day's segment (the writer never goes back a day when the clock does), never
        // in an earlier one.
        guard AuditTime.day(entry.time) <= day else { throw BrokenLink(reason: "the entry is dated after its segment's day") }
        return entry
    }
}
