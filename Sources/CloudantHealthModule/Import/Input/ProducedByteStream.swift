internal import CloudantBase
internal import CloudantCore
internal import Foundation
internal import ZIPFoundation

/// Bytes made on a thread of their own (a zip member or a gzip file being inflated) and handed to a reader
/// through a small bounded queue: how `export.xml` is read straight out of `export.zip` or `export.xml.gz`.
///
/// Why: unpacking first wrote the whole `export.xml` (about 450 MB per million records) to disk only to read
/// it back; streaming skips that, and inflating runs beside parsing on another core. The queue holds at
/// most ``queueLimit`` chunks, so memory stays flat whatever the input's size.
final class ProducedByteStream: ExportByteSource, @unchecked Sendable {
    // `condition` protects `chunks`, `finished`, `failure` and `stopped`; the reader's `current`/`offset`
    // are touched only by the reading thread.
    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var finished = false
    private var failure: (any Error)?
    private var stopped = false
    private var current = Data()
    private var offset = 0

    static let queueLimit = 8
    static let chunkSize = 1 << 18

    /// Starts `produce` on a thread named `threadName`; it hands its bytes to the closure it is given, which
    /// throws `CancellationError` once the reader has stopped.
    init(threadName: String, produce: @escaping @Sendable (_ emit: (Data) throws -> Void) throws -> Void) {
        NamedThread.start(threadName) { [self] in run(produce) }
    }

    /// Inflates `member` of the zip at `url`, checking its CRC-32 at the end as unpacking did.
    static func zipMember(archive url: URL, member: String) -> ProducedByteStream {
        ProducedByteStream(threadName: "health-import-unzip") { emit in
            let archive = try Archive(url: url, accessMode: .read)
            guard let entry = archive[member] else {
                throw CloudantError(.invalidHealthExport, "The archive changed while it was read.", context: .init(field: member))
            }
            var checksum = RunningCRC32()
            _ = try archive.extract(entry, bufferSize: chunkSize, skipCRC32: true) { data in
                checksum.update(with: data)
                try emit(data)
            }
            if checksum.value != entry.checksum {
                throw CloudantError(
                    .invalidHealthExport, "The archive member's checksum does not match; the zip may be damaged.",
                    context: .init(field: member))
            }
        }
    }

    /// Tells the producing thread to stop early (the reader is done or failed). The owner must call it: the
    /// thread holds the stream until it ends.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Up to `capacity` bytes; empty at the end.
    /// - Throws: what producing failed with (a damaged archive, a CRC mismatch, a cut-short gzip file).
    func read(upTo capacity: Int) throws -> Data {
        if offset == current.count {
            condition.lock()
            while chunks.isEmpty && !finished { condition.wait() }
            if chunks.isEmpty {
                let failure = failure
                condition.unlock()
                if let failure { throw failure }
                return Data()
            }
            current = chunks.removeFirst()
            offset = 0
            condition.broadcast()
            condition.unlock()
        }
        let end = min(current.count, offset + capacity)
        defer { offset = end }
        return current.subdata(in: offset..<end)
    }

    private func run(_ produce: @Sendable (_ emit: (Data) throws -> Void) throws -> Void) {
        var failure: (any Error)?
        do {
            try produce { data in try self.enqueue(data) }
        } catch is CancellationError {
            // The reader stopped early; nothing to report.
        } catch {
            failure = error
        }
        condition.lock()
        finished = true
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }

    private func enqueue(_ data: Data) throws {
        guard !data.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= Self.queueLimit && !stopped { condition.wait() }
        if stopped { throw CancellationError() }
        chunks.append(data)
        condition.broadcast()
    }
}
