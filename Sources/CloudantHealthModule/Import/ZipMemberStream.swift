internal import CloudantCore
internal import Foundation
internal import ZIPFoundation

/// Inflates one member of a zip archive on a thread of its own and hands the bytes to a reader through a
/// small bounded queue: how `export.xml` is read straight out of `export.zip`.
///
/// Why: unpacking first wrote the whole `export.xml` (about 450 MB per million records) to disk only to read
/// it back; streaming skips that, and inflating runs beside parsing on another core. The queue holds at
/// most ``queueLimit`` chunks, so memory stays flat whatever the member's size. The CRC-32 is checked at
/// the end, as unpacking did.
final class ZipMemberStream: @unchecked Sendable {
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

    /// The member's size once inflated.
    let uncompressedSize: Int

    /// Starts inflating `member` of `archive`.
    init(archive url: URL, member: String, uncompressedSize: Int) {
        self.uncompressedSize = uncompressedSize
        let thread = Thread { [self] in produce(url: url, member: member) }
        thread.name = "health-import-unzip"
        thread.start()
    }

    /// Tells the inflating thread to stop early (the reader is done or failed). The owner must call it: the
    /// thread holds the stream until it ends.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Up to `capacity` bytes; empty at the end of the member.
    /// - Throws: what inflating failed with (a damaged archive, a CRC mismatch).
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

    private func produce(url: URL, member: String) {
        var failure: (any Error)?
        do {
            let archive = try Archive(url: url, accessMode: .read)
            guard let entry = archive[member] else {
                throw CloudantError(.invalidHealthExport, "The archive changed while it was read.", context: .init(field: member))
            }
            let checksum = try archive.extract(entry, bufferSize: Self.chunkSize) { data in try self.enqueue(data) }
            if checksum != entry.checksum {
                throw CloudantError(
                    .invalidHealthExport, "The archive member's checksum does not match; the zip may be damaged.",
                    context: .init(field: member))
            }
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
