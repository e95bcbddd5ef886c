internal import CloudantBase
public import CloudantCore
public import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// An append-only, tamper-evident log of who read, wrote, deleted, replicated or was refused what, kept in a
/// folder of daily segments (see `AuditSegments`) and chained by SHA-256 (see ``AuditEntry``).
///
/// Recording never waits for the disk: `record(_:)` queues the entry and a writer thread appends what has
/// queued, one `write` and one `fsync` per batch (group commit), so a busy server pays a lock and an array
/// append per request. The price is that the last batch (a few milliseconds of requests) may be lost to a
/// power cut or `kill -9`; a line the crash cut short is removed when the trail opens again, and the chain
/// continues from the last whole line. One writer per folder: the trail holds an exclusive `flock` while open.
///
/// A write that fails (a full disk) takes back whatever part of the batch reached the file, keeps the entries
/// queued and tries again, backing off to once a second; ``writeFailure`` says why meanwhile. Entries still
/// queued when the trail closes with the disk still failing are lost, and the failure says how many.
public final class AuditTrail: @unchecked Sendable {
    // `condition` guards `pending`, `recorded`, `durable`, `flushWaiters`, `closing`, `finished`, `stopWaiters`
    // and `failure`; the writer thread alone touches `sequence`, `lastHash`, `openDay`, `linesInOpenDay`,
    // `anchor`, `segment` and `segmentEnd` (and `init` before it starts, `deinit` once it has ended).
    private let condition = NSCondition()
    private var pending: [AuditDraft] = []
    private var recorded: Int64 = 0
    private var durable: Int64 = 0
    private var flushWaiters: [(Int64, CheckedContinuation<Void, Never>)] = []
    private var closing = false
    private var finished = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private var failure: CloudantError?

    private let segments: AuditSegments
    private let retentionDays: Int?
    /// Sign the head and anchor, and encrypt the lines (an encrypted server's); `nil` keeps neither.
    private let keys: AuditKeys?
    private let codec: AuditLineCodec
    private let now: @Sendable () -> Date
    private let lock: Int32
    private var sequence: Int64
    private var lastHash: String
    private var openDay: String?
    /// The lines of the open day's segment (sealed into the next day's first entry and into the head).
    private var linesInOpenDay = 0
    /// The anchor the chain starts after.
    private var anchor: (sequence: Int64, hash: String)
    private var segment: FileHandle?
    /// Where the open segment's last whole line ends: what a failed write left after it is cut off before the
    /// next attempt. `nil` until a segment is opened.
    private var segmentEnd: UInt64?
    /// The seal of the day just left, for the new day's first entry.
    private var pendingSeal: AuditSeal?

    /// The longest wait between two attempts at a write that fails.
    private static let longestRetryDelay = 1.0

    /// The folder of the trail.
    public var folder: String { segments.folder.path }

    /// Why the last attempt to write queued entries failed, while writing fails; `nil` once a write succeeds.
    public var writeFailure: CloudantError? {
        condition.lock()
        defer { condition.unlock() }
        return failure
    }

    /// Opens (creating) the trail in `folder`, repairing a line a crash cut short, and applies the retention.
    ///
    /// ```swift
    /// let trail = try AuditTrail(folder: dataFolder + "/_audit", retentionDays: 365)
    /// ```
    /// - Parameters:
    ///   - folder: The folder of the trail's daily segments; created when missing.
    ///   - retentionDays: whole days of entries to keep; older segments are removed (an anchor keeps the chain
    ///     verifiable). `nil` keeps everything.
    ///   - keys: the server's keys: with them the trail keeps a signed head (`AuditHead`) and signs its anchor,
    ///     so that cutting lines off its end, removing its newest or oldest segments or forging the anchor is
    ///     found; and, with an encryption key, encrypts every line. A head that does not match the trail when it
    ///     opens is kept as evidence (`tamper-…json`), which verification reports.
    ///   - now: the clock that stamps entries (tests move it to cross days).
    /// - Throws: `CloudantError` `.auditTrailInUse` when another writer holds the folder,
    ///   `.auditTrailUnusable` when it cannot be created, read or written.
    public init(
        folder: String, retentionDays: Int? = nil, keys: AuditKeys? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        segments = AuditSegments(folder: folder)
        self.retentionDays = retentionDays
        self.keys = keys
        codec = AuditLineCodec(key: keys?.encryption)
        anchor = (0, AuditEntry.genesisHash)
        self.now = now
        do {
            try FileManager.default.createDirectory(at: segments.folder, withIntermediateDirectories: true)
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not create the audit folder '\(folder)'.", underlying: error)
        }
        lock = open(segments.lockURL.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else { throw CloudantError(.auditTrailUnusable, "Could not open '\(segments.lockURL.path)'.") }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(lock)
            throw CloudantError(.auditTrailInUse, "Another process writes the audit trail in '\(folder)'.")
        }
        do {
            let resumed = try segments.resume(codec: codec)
            (sequence, lastHash, openDay, linesInOpenDay) = (resumed.sequence, resumed.hash, resumed.day, resumed.lines)
            anchor = (resumed.anchorSequence, resumed.anchorHash)
            try checkHead(against: resumed)
            if let retentionDays,
                let moved = try segments.prune(retentionDays: retentionDays, now: now(), keeping: nil, keys: keys, codec: codec)
            {
                anchor = moved
            }
            try writeHead()
        } catch {
            Glibc.close(lock)
            throw error
        }
        NamedThread.start("audit-trail") { [self] in writeLoop() }
    }

    deinit {
        try? segment?.close()
        Glibc.close(lock)
    }

    /// Queues one entry, stamped with the trail's clock; returns at once.
    ///
    /// The stamp is taken under the queue's lock so that the queue's order is the clock's order: two requests
    /// answered either side of midnight cannot reach the file in the other order.
    func record(_ draft: AuditDraft) {
        condition.lock()
        defer { condition.unlock() }
        guard !closing else { return }
        var draft = draft
        draft.time = now()
        pending.append(draft)
        recorded += 1
        condition.signal()
    }

    /// Returns once every entry recorded before the call is written and synced (or the trail has closed).
    ///
    /// While writes fail (``writeFailure``) this waits for the disk to recover.
    public func flush() async {
        await withCheckedContinuation { continuation in
            condition.lock()
            if durable >= recorded || finished {
                condition.unlock()
                continuation.resume()
                return
            }
            flushWaiters.append((recorded, continuation))
            condition.unlock()
        }
    }

    /// Writes what is queued, stops the writer and releases the folder.
    ///
    /// Returns even when writes fail: one more attempt is made, and what it cannot write is lost (counted in
    /// ``writeFailure``).
    public func close() async {
        await withCheckedContinuation { continuation in
            condition.lock()
            if finished {
                condition.unlock()
                continuation.resume()
                return
            }
            closing = true
            stopWaiters.append(continuation)
            condition.signal()
            condition.unlock()
        }
    }

    // MARK: Writer thread

    private func writeLoop() {
        var retryDelay = 0.05
        while true {
            condition.lock()
            while pending.isEmpty && !closing { condition.wait() }
            let batch = pending
            pending = []
            let stop = closing && batch.isEmpty
            condition.unlock()
            if stop { break }
            let (written, error) = append(batch)
            condition.lock()
            durable += Int64(written)
            failure = error
            if error != nil {
                if closing {
                    let lost = batch.count - written + pending.count
                    failure = CloudantError(
                        .auditTrailUnusable, "The audit trail closed with \(lost) entries it could not write.",
                        underlying: error)
                    pending = []
                } else {
                    pending.insert(contentsOf: batch[written...], at: 0)
                }
            }
            let ready = flushWaiters.filter { $0.0 <= durable }
            flushWaiters.removeAll { $0.0 <= durable }
            condition.unlock()
            for (_, waiter) in ready { waiter.resume() }
            if error == nil {
                retryDelay = 0.05
            } else {
                waitBeforeRetrying(retryDelay)
                retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
            }
        }
        try? segment?.close()
        segment = nil
        // Another trail (a server started again on this folder) may open it now.
        flock(lock, LOCK_UN)
        condition.lock()
        finished = true
        let waiters = flushWaiters.map(\.1) + stopWaiters
        flushWaiters = []
        stopWaiters = []
        condition.unlock()
        for waiter in waiters { waiter.resume() }
    }

    /// Sleeps `seconds` unless the trail is asked to close meanwhile (new entries do not wake it: under load
    /// they would turn the back-off into a busy loop).
    private func waitBeforeRetrying(_ seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        while !closing, condition.wait(until: deadline) {}
        condition.unlock()
    }

    /// Chains and writes a batch: one write and one fsync per segment it touches. Returns how many entries
    /// are durable, and the error that stopped the rest.
    private func append(_ batch: [AuditDraft]) -> (Int, CloudantError?) {
        var written = 0
        while written < batch.count {
            // Never back to an older day's segment (see ``AuditResumePoint/day``).
            let day = max(AuditTime.day(batch[written].time), openDay ?? "")
            var end = written + 1
            while end < batch.count, AuditTime.day(batch[end].time) <= day { end += 1 }
            do {
                try write(batch[written..<end], toDay: day)
            } catch {
                return (written, error)
            }
            written = end
        }
        return (written, nil)
    }

    /// Appends `drafts` to the segment of `day` and syncs it; the chain moves on only once they are durable.
    private func write(_ drafts: ArraySlice<AuditDraft>, toDay day: String) throws(CloudantError) {
        if day != openDay || segment == nil { try openSegment(day) }
        guard let segment, var end = segmentEnd else {
            throw CloudantError(.auditTrailUnusable, "The audit segment of \(day) is not open.")
        }
        var (sequence, lastHash) = (self.sequence, self.lastHash)
        var bytes: [UInt8] = []
        for (index, var draft) in drafts.enumerated() {
            if index == 0, linesInOpenDay == 0, let pendingSeal { draft.seal = pendingSeal }
            sequence += 1
            let canonical = AuditLine.canonical(draft, sequence: sequence, previousHash: lastHash)
            lastHash = AuditLine.hash(of: canonical)
            var line = AuditLine.line(canonical: canonical, hash: lastHash)
            line.removeLast()
            bytes += codec.encode(line) + [10]
        }
        do {
            // A failed attempt may have left part of its lines: they go before these are written again.
            let fileEnd = try segment.seekToEnd()
            if fileEnd > end {
                try segment.truncate(atOffset: end)
                try segment.seek(toOffset: end)
            } else {
                end = fileEnd
            }
            try segment.write(contentsOf: bytes)
            try segment.synchronize()
        } catch {
            // Opened afresh next time: the file may have been replaced while it failed.
            try? segment.close()
            self.segment = nil
            throw CloudantError(
                .auditTrailUnusable, "Could not write the audit segment '\(AuditSegments.fileName(forDay: day))'.",
                underlying: error)
        }
        segmentEnd = end + UInt64(bytes.count)
        (self.sequence, self.lastHash) = (sequence, lastHash)
        linesInOpenDay += drafts.count
        pendingSeal = nil
        // The lines are durable; the head follows them (a crash here leaves it one batch behind, which the next
        // open accepts).
        try? writeHead()
    }

    private func openSegment(_ day: String) throws(CloudantError) {
        try? segment?.close()
        segment = nil
        let url = segments.url(forDay: day)
        if day != openDay {
            // The day being left is sealed into the new day's first entry.
            if let openDay, linesInOpenDay > 0 {
                pendingSeal = AuditSeal(day: openDay, lines: linesInOpenDay, hash: lastHash)
            }
            linesInOpenDay = (try? AuditLineReader.countLines(in: url)) ?? 0
        }
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            // The new name must survive a crash too.
            segments.syncFolder()
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            let size = try handle.seekToEnd()
            // Reopened after a failed write: the whole lines end where they ended, whatever the failure left.
            if day == openDay, let known = segmentEnd, known < size {
                segmentEnd = known
            } else {
                segmentEnd = size
            }
            segment = handle
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not open the audit segment '\(url.path)'.", underlying: error)
        }
        let newDay = day != openDay
        openDay = day
        // A day begun is when old days expire; a failure here leaves them for the next day (or the next open).
        if newDay, let retentionDays,
            let moved = try? segments.prune(retentionDays: retentionDays, now: now(), keeping: day, keys: keys, codec: codec)
        {
            anchor = moved
        }
    }

    // MARK: The head

    /// Writes the signed head for where the trail now ends (nothing without keys).
    private func writeHead() throws {
        guard let keys else { return }
        try AuditHead(
            sequence: sequence, hash: lastHash, day: openDay, lines: linesInOpenDay, anchorSequence: anchor.sequence,
            anchorHash: anchor.hash
        ).write(in: segments.folder, keys: keys)
    }

    /// Compares the head the folder holds with the trail as found, before writing again: a head ahead of the
    /// trail, naming another last entry or more lines than the newest segment has, or not signed by these keys,
    /// and an anchor not signed by them, are kept as evidence. A trail kept before heads existed gets its first
    /// head (and its anchor a signature) now.
    private func checkHead(against resumed: AuditResumePoint) throws {
        guard let keys else { return }
        let time = now()
        var problems: [String] = []
        let head = AuditHead.read(in: segments.folder, keys: keys)
        switch head {
        case .missing:
            break
        case .forged:
            problems.append("head.json is not signed by this server's key")
        case .found(let head, _):
            if head.sequence > resumed.sequence {
                problems.append(
                    "the head names entry \(head.sequence) but the trail ends at \(resumed.sequence): lines were cut off "
                        + "its end or its newest segment removed")
            } else if head.sequence == resumed.sequence, head.hash != resumed.hash {
                problems.append("the trail's last entry is not the one the head names")
            } else if head.sequence == resumed.sequence, head.day == resumed.day, head.lines > resumed.lines {
                problems.append("the newest segment has \(resumed.lines) lines where the head counted \(head.lines)")
            }
        }
        let found = try segments.anchor(keys: keys)
        if found.signature == .invalid {
            if case .missing = head {
                // Written before anchors were signed: adopted, as the head is.
                try segments.writeAnchor(sequence: found.sequence, hash: found.hash, throughDay: found.through, keys: keys)
            } else {
                problems.append("anchor.json is not signed by this server's key")
            }
        }
        if !problems.isEmpty {
            AuditHead.keepEvidence(in: segments.folder, reason: problems.joined(separator: "; "), at: time)
        }
    }
}
