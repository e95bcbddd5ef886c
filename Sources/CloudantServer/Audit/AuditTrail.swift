internal import CloudantCore
public import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// An append-only, tamper-evident log of who read, wrote, deleted, replicated or was refused what, kept in a
/// folder of daily segments (see ``AuditSegments``) and chained by SHA-256 (see ``AuditEntry``).
///
/// Recording never waits for the disk: ``record(_:)`` queues the entry and a writer thread appends what has
/// queued, one `write` and one `fsync` per batch (group commit), so a busy server pays a lock and an array
/// append per request. The price is that the last batch (a few milliseconds of requests) may be lost to a
/// power cut or `kill -9`; a line the crash cut short is removed when the trail opens again, and the chain
/// continues from the last whole line. One writer per folder: the trail holds an exclusive `flock` while open.
public final class AuditTrail: @unchecked Sendable {
    // `condition` guards `pending`, `recorded`, `durable`, `flushWaiters` and `closing`; the writer thread owns
    // `sequence`, `lastHash`, `openDay` and `segment`.
    private let condition = NSCondition()
    private var pending: [AuditDraft] = []
    private var recorded: Int64 = 0
    private var durable: Int64 = 0
    private var flushWaiters: [(Int64, CheckedContinuation<Void, Never>)] = []
    private var closing = false
    private var finished = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []

    private let segments: AuditSegments
    private let retentionDays: Int?
    private let now: @Sendable () -> Date
    private let lock: Int32
    private var sequence: Int64
    private var lastHash: String
    private var openDay: String?
    private var segment: FileHandle?
    private var thread: Thread?

    /// The folder of the trail.
    public var folder: String { segments.folder.path }

    /// Opens (creating) the trail in `folder`, repairing a line a crash cut short, and applies the retention.
    /// - Parameters:
    ///   - retentionDays: whole days of entries to keep; older segments are removed (an anchor keeps the chain
    ///     verifiable). `nil` keeps everything.
    ///   - now: the clock (tests move it to cross days).
    /// - Throws: ``CloudantCore/CloudantError`` `.auditTrailInUse` when another writer holds the folder,
    ///   `.auditTrailUnusable` when it cannot be created, read or written.
    public init(folder: String, retentionDays: Int? = nil, now: @escaping @Sendable () -> Date = { Date() }) throws {
        segments = AuditSegments(folder: folder)
        self.retentionDays = retentionDays
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
            (sequence, lastHash) = try Self.recover(segments)
            try prune()
        } catch {
            Glibc.close(lock)
            throw error
        }
        let thread = Thread { [self] in writeLoop() }
        thread.name = "audit-trail"
        self.thread = thread
        thread.start()
    }

    deinit {
        segment?.closeFile()
        Glibc.close(lock)
    }

    /// Queues one entry; returns at once.
    func record(_ draft: AuditDraft) {
        condition.lock()
        defer { condition.unlock() }
        guard !closing else { return }
        pending.append(draft)
        recorded += 1
        condition.signal()
    }

    /// Returns once every entry recorded before the call is written and synced.
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
    public func close() async {
        await flush()
        await withCheckedContinuation { continuation in requestStop(continuation) }
    }

    private func requestStop(_ continuation: CheckedContinuation<Void, Never>) {
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

    // MARK: Writer thread

    private func writeLoop() {
        while true {
            condition.lock()
            while pending.isEmpty && !closing { condition.wait() }
            let batch = pending
            pending = []
            let stop = closing && batch.isEmpty
            condition.unlock()
            if stop { break }
            append(batch)
            condition.lock()
            durable += Int64(batch.count)
            let ready = flushWaiters.filter { $0.0 <= durable }
            flushWaiters.removeAll { $0.0 <= durable }
            condition.unlock()
            for (_, waiter) in ready { waiter.resume() }
        }
        segment?.closeFile()
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

    /// Chains and writes a batch: one write per segment it touches, then one fsync.
    private func append(_ batch: [AuditDraft]) {
        var bytes: [UInt8] = []
        for draft in batch {
            let day = AuditTime.day(draft.time)
            if day != openDay {
                flushBytes(&bytes)
                switchSegment(to: day)
            }
            sequence += 1
            let canonical = AuditLine.canonical(draft, sequence: sequence, previousHash: lastHash)
            lastHash = AuditLine.hash(of: canonical)
            bytes += AuditLine.line(canonical: canonical, hash: lastHash)
        }
        flushBytes(&bytes)
        if let segment { fsync(segment.fileDescriptor) }
    }

    private func flushBytes(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty, let segment else { return }
        segment.write(Data(bytes))
        bytes = []
    }

    private func switchSegment(to day: String) {
        if let segment { fsync(segment.fileDescriptor); segment.closeFile() }
        let url = segments.url(forDay: day)
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
            // The new name must survive a crash too.
            let directory = open(segments.folder.path, O_RDONLY | O_DIRECTORY)
            if directory >= 0 { fsync(directory); Glibc.close(directory) }
        }
        segment = FileHandle(forWritingAtPath: url.path)
        segment?.seekToEndOfFile()
        openDay = day
        try? prune()
    }

    // MARK: Recovery and retention

    /// The last sequence and hash on disk, after cutting off a line a crash left half-written.
    private static func recover(_ segments: AuditSegments) throws -> (Int64, String) {
        let anchor = try segments.anchor()
        do {
            for day in try segments.days().reversed() {
                let (lines, torn) = try segments.lines(ofDay: day)
                if torn {
                    let keep = lines.last.map { $0.bytes.endIndex + 1 } ?? 0
                    let handle = try FileHandle(forWritingTo: segments.url(forDay: day))
                    try handle.truncate(atOffset: UInt64(keep))
                    try handle.synchronize()
                    try handle.close()
                }
                // The newest whole line the chain continues from (verification judges the rest).
                for line in lines.reversed() {
                    if let entry = try? AuditLine.parse(line.bytes) { return (entry.sequence, entry.hash) }
                }
            }
        } catch let error as CloudantError {
            throw error
        } catch {
            throw CloudantError(.auditTrailUnusable, "Could not read the audit trail in '\(segments.folder.path)'.", underlying: error)
        }
        return anchor
    }

    /// Removes the segments older than the retention, after moving the anchor past their last entry.
    private func prune() throws {
        guard let retentionDays else { return }
        let cutoff = AuditTime.day(now().addingTimeInterval(-Double(retentionDays) * 86_400))
        let doomed = try segments.days().filter { $0 < cutoff && $0 != openDay }
        guard let newest = doomed.last else { return }
        let (lines, _) = try segments.lines(ofDay: newest)
        if let last = lines.last, let entry = try? AuditLine.parse(last.bytes) {
            try segments.writeAnchor(sequence: entry.sequence, hash: entry.hash, throughDay: newest)
        }
        for day in doomed { try FileManager.default.removeItem(at: segments.url(forDay: day)) }
    }
}
