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
    /// - Throws: ``CloudantCore/CloudantError`` `.auditTrailUnusable` when the folder cannot be read.
    public static func verify(folder: String) throws -> AuditChainReport {
        let segments = AuditSegments(folder: folder)
        let anchor = try segments.anchor()
        var report = AuditChainReport(entries: 0, anchored: anchor.sequence > 0)
        var expected = (sequence: anchor.sequence + 1, previous: anchor.hash)
        do {
            for day in try segments.days() {
                let name = AuditSegments.prefix + day + AuditSegments.suffix
                let (lines, torn) = try segments.lines(ofDay: day)
                for line in lines {
                    func broken(_ reason: String) -> AuditChainReport {
                        report.firstBreak = .init(segment: name, line: line.number, reason: reason)
                        return report
                    }
                    let entry: AuditEntry
                    do {
                        entry = try AuditLine.parse(line.bytes)
                    } catch .hashMismatch {
                        return broken("the line's content does not match its hash (edited)")
                    } catch {
                        return broken("the line is not an audit entry")
                    }
                    guard entry.sequence == expected.sequence else {
                        return broken("sequence \(entry.sequence) where \(expected.sequence) was due (lines removed, inserted or moved)")
                    }
                    guard entry.previousHash == expected.previous else {
                        return broken("the line does not follow the previous entry's hash")
                    }
                    guard AuditTime.day(entry.time) == day else {
                        return broken("the entry's day is not its segment's")
                    }
                    report.entries += 1
                    report.firstSequence = report.firstSequence ?? entry.sequence
                    report.lastSequence = entry.sequence
                    expected = (entry.sequence + 1, entry.hash)
                }
                if torn {
                    report.firstBreak = .init(segment: name, line: lines.count + 1, reason: "the last line is incomplete")
                    return report
                }
            }
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not read the audit trail in '\(folder)'.", underlying: error)
        }
        return report
    }
}
