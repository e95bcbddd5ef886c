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
    /// Whether the head and anchor were checked against the server's keys (``AuditKeys``): without them, a head
    /// or anchor written by hand cannot be told from the server's own.
    public var signed: Bool = false
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
            "signed": .bool(signed),
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
    /// Checks the trail in `folder`, from the anchor retention left (or the first entry ever) to the last line:
    /// every line's hash must be the hash of its content, every line must name the previous line's hash and
    /// follow its sequence, segments must follow one another, and a day's first entry must carry the seal of the
    /// day before (its line count and last hash). A line edited, removed, inserted or moved, a segment removed by
    /// hand, or the oldest lines cut off all break it.
    ///
    /// With the server's `keys`, the signed head must match where the trail ends (lines cut off the end of the
    /// newest segment, or that segment removed, break it), the anchor must be the server's (a forged one breaks
    /// it), encrypted lines are read, and any evidence the server kept of a trail it found altered when it opened
    /// (`tamper-…json`) is reported. Without them only the chain is checked, and ``AuditChainReport/signed`` says so.
    ///
    /// An incomplete last line in the newest segment is a break only when no writer has the folder open: with
    /// one, it is a batch being written (and a crash's remnant is cut off when the trail next opens).
    ///
    /// ```swift
    /// let report = try AuditTrail.verify(folder: dataFolder + "/_audit", keys: try AuditKeys.ofServer(dataFolder: dataFolder))
    /// if let broken = report.firstBreak { print(broken.segment, broken.line, broken.reason) }
    /// ```
    /// - Throws: `CloudantError` `.notFound` when there is no such folder, `.auditTrailUnusable`
    ///   when it cannot be read.
    public static func verify(folder: String, keys: AuditKeys? = nil) throws -> AuditChainReport {
        let segments = AuditSegments(folder: folder)
        // A mistyped folder must not read as an intact (empty) trail.
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw CloudantError(.notFound, "There is no audit trail in '\(folder)'.")
        }
        let codec = AuditLineCodec(key: keys?.encryption)
        let anchor = try segments.anchor(keys: keys)
        var report = AuditChainReport(entries: 0, anchored: anchor.sequence > 0)
        report.signed = keys != nil
        if anchor.signature == .invalid {
            report.firstBreak = .init(segment: "anchor.json", line: 1, reason: "the anchor is not signed by this server (forged or edited)")
            return report
        }
        if let evidence = AuditHead.evidence(in: segments.folder).first {
            let found = FileManager.default.contents(atPath: segments.folder.appendingPathComponent(evidence).path)
                .flatMap { try? JSONValue(parsing: $0) }
            let reason = found?["reason"]?.stringValue ?? "the trail was found altered"
            report.firstBreak = .init(segment: evidence, line: 1, reason: "when the server opened the trail: \(reason)")
            return report
        }
        // The head is read before the lines: the writer syncs lines before their head, so a head read first never
        // names lines a later read of the segments would miss.
        let head = keys.map { AuditHead.read(in: segments.folder, keys: $0) }
        var expected = (sequence: anchor.sequence + 1, previous: anchor.hash)
        var previousSegment: (day: String, lines: Int)?
        var hashes: [Int64: String] = [:]
        var linesByDay: [String: Int] = [:]
        do {
            let days = try segments.days()
            for day in days {
                let name = AuditSegments.fileName(forDay: day)
                let scan = try AuditLineReader.forEachLine(in: segments.url(forDay: day)) { number, bytes in
                    do throws(BrokenLink) {
                        let entry = try link(bytes, codec: codec, inSegmentOf: day, expected: expected)
                        if number == 1, let previousSegment, let seal = entry.seal {
                            guard seal.day == previousSegment.day, seal.lines == previousSegment.lines,
                                seal.hash == expected.previous
                            else {
                                throw BrokenLink(
                                    reason: "the day's seal says \(seal.day) held \(seal.lines) lines; \(previousSegment.day) holds "
                                        + "\(previousSegment.lines) (lines cut off the end of that day)")
                            }
                        }
                        report.entries += 1
                        report.firstSequence = report.firstSequence ?? entry.sequence
                        report.lastSequence = entry.sequence
                        expected = (entry.sequence + 1, entry.hash)
                        hashes[entry.sequence] = entry.hash
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
                previousSegment = (day, scan.lines)
                linesByDay[day] = scan.lines
                // Only the hashes the head may name are kept: those of the newest segment.
                if day != days.last { hashes.removeAll(keepingCapacity: true) }
            }
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not read the audit trail in '\(folder)'.", underlying: error)
        }
        if let head { report.firstBreak = headBreak(head, report: report, hashes: hashes, lines: linesByDay) }
        return report
    }

    /// Where the trail fails its signed head, if it does.
    private static func headBreak(
        _ head: AuditHead.Read, report: AuditChainReport, hashes: [Int64: String], lines: [String: Int]
    ) -> AuditChainReport.Break? {
        func broken(_ reason: String) -> AuditChainReport.Break { .init(segment: AuditHead.fileName, line: 1, reason: reason) }
        switch head {
        case .missing:
            return broken("the head is missing: the trail's newest lines or files may have been removed")
        case .forged:
            return broken("the head is not signed by this server (forged or edited)")
        case .found(let head, _):
            let last = report.lastSequence ?? head.anchorSequence
            if head.sequence > last {
                return broken(
                    "the head names entry \(head.sequence) but the trail ends at \(last): lines were cut off its end or "
                        + "segments removed")
            }
            if let hash = hashes[head.sequence], hash != head.hash {
                return broken("entry \(head.sequence) is not the one the head names")
            }
            if let day = head.day, let held = lines[day], held < head.lines {
                return broken("\(AuditSegments.fileName(forDay: day)) holds \(held) lines where the head counted \(head.lines)")
            }
            if let day = head.day, lines[day] == nil, head.lines > 0 {
                return broken("\(AuditSegments.fileName(forDay: day)), the newest segment the head names, is missing")
            }
            return nil
        }
    }

    /// Why a line does not continue the chain.
    private struct BrokenLink: Error {
        var reason: String
    }

    /// The entry a line holds, when it continues the chain.
    private static func link(
        _ stored: ArraySlice<UInt8>, codec: AuditLineCodec, inSegmentOf day: String, expected: (sequence: Int64, previous: String)
    ) throws(BrokenLink) -> AuditEntry {
        let entry: AuditEntry
        let bytes: ArraySlice<UInt8>
        do {
            bytes = try codec.decode(stored)
        } catch {
            throw BrokenLink(reason: "the line is encrypted and cannot be read with this server's key")
        }
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
