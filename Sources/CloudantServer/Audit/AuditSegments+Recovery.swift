internal import CloudantCore
internal import Foundation

/// Where a writer picks the chain up when it opens a folder.
struct AuditResumePoint {
    /// The newest segment's day: the writer never files an entry in an older one, so a clock set back (or a
    /// request answered just before midnight and queued just after) cannot put a later sequence in an
    /// earlier file.
    var day: String?
    /// The last entry's sequence (the anchor's, or 0, when there is none).
    var sequence: Int64
    /// The last entry's hash (the anchor's, or ``AuditEntry/genesisHash``).
    var hash: String
    /// The lines of the newest segment.
    var lines = 0
    /// The anchor the chain starts after.
    var anchorSequence: Int64 = 0
    var anchorHash = AuditEntry.genesisHash
}

extension AuditSegments {
    /// The chain's end on disk, after cutting off a line a crash left half-written at the end of the newest
    /// segment. Older segments are never changed: a torn line there is not a crash's and verification must
    /// see it.
    /// - Throws: `CloudantError` `.auditTrailUnusable` when the folder cannot be read.
    func resume(codec: AuditLineCodec = .plain) throws -> AuditResumePoint {
        let anchor = try anchor()
        do {
            let days = try days()
            let lines = try days.last.map { try AuditLineReader.countLines(in: url(forDay: $0)) } ?? 0
            for day in days.reversed() {
                let tail = try AuditLineReader.tail(of: url(forDay: day), codec: codec)
                if day == days.last, tail.wholeLinesEnd < tail.size {
                    let handle = try FileHandle(forWritingTo: url(forDay: day))
                    try handle.truncate(atOffset: tail.wholeLinesEnd)
                    try handle.synchronize()
                    try handle.close()
                }
                if let entry = tail.entry {
                    return AuditResumePoint(
                        day: days.last, sequence: entry.sequence, hash: entry.hash, lines: lines,
                        anchorSequence: anchor.sequence, anchorHash: anchor.hash)
                }
            }
            return AuditResumePoint(
                day: days.last, sequence: anchor.sequence, hash: anchor.hash, lines: lines, anchorSequence: anchor.sequence,
                anchorHash: anchor.hash)
        } catch let error as CloudantError {
            throw error
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not read the audit trail in '\(folder.path)'.", underlying: error)
        }
    }

    /// Removes the segments of days before `retentionDays` ago (never `openDay`, the one being written), after
    /// moving the anchor to the last entry they hold.
    /// - Returns: The new anchor, when entries were removed.
    @discardableResult
    func prune(
        retentionDays: Int, now: Date, keeping openDay: String?, keys: AuditKeys? = nil, codec: AuditLineCodec = .plain
    ) throws -> (sequence: Int64, hash: String)? {
        let cutoff = AuditTime.day(now.addingTimeInterval(-Double(retentionDays) * 86_400))
        let doomed = try days().filter { $0 < cutoff && $0 != openDay }
        guard !doomed.isEmpty else { return nil }
        // The newest doomed day may hold no whole entry (a crash right after it began): the anchor is then the
        // last entry of an older one.
        var anchored: (sequence: Int64, hash: String)?
        for day in doomed.reversed() {
            guard let entry = try AuditLineReader.tail(of: url(forDay: day), codec: codec).entry else { continue }
            try writeAnchor(sequence: entry.sequence, hash: entry.hash, throughDay: doomed[doomed.count - 1], keys: keys)
            anchored = (entry.sequence, entry.hash)
            break
        }
        for day in doomed { try FileManager.default.removeItem(at: url(forDay: day)) }
        syncFolder()
        return anchored
    }
}
