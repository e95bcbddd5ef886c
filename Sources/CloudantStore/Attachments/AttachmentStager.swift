internal import CSystemZlib
internal import CloudantCore
internal import CompressNIO
internal import NIOCore

/// Streams new attachment content into a staging file beside the store, in bounded memory: compressed on
/// the way when CouchDB would keep it compressed (the same bytes ``Gzip/encode(_:level:)`` gives, so the same
/// digest), digested on the way, and checked against what the sender declared.
///
/// Whatever the content's size, at most one piece and zlib's window are in memory at a time.
struct AttachmentStager {
    let files: AttachmentFiles
    let compression: AttachmentCompression

    /// What the sender says about the content.
    struct Declared {
        var contentType: String
        /// How the streamed bytes are encoded: gzip bytes are kept as sent (and inflated on the way only to
        /// learn and check their length).
        var encoding: AttachmentEncoding = .identity
        /// The length as written, when the sender gave it; checked.
        var length: Int?
        /// The digest the sender computed (of the stored form or of the content as written); checked.
        var digest: String?
        /// The most content bytes accepted.
        var maxLength: Int = .max
    }

    /// Stages `content`; the caller owns the returned file until a write installs it.
    /// - Throws: `CloudantError` `.attachmentDigestMismatch`, `.invalidInput` (damaged gzip, a wrong
    ///   length), `.attachmentTooLarge` past `maxLength`, or the sequence's own error; the staging file is removed.
    func stage<Chunks: AsyncSequence & Sendable>(
        _ content: Chunks, declared: Declared, name: String, documentID: String
    ) async throws -> StagedAttachment where Chunks.Element == [UInt8] {
        let file = try files.makeStagingFile()
        do {
            let info: AttachmentInfo
            switch declared.encoding {
            case .identity where compression.compresses(declared.contentType):
                info = try await stageCompressing(content, into: file, declared: declared, name: name, documentID: documentID)
            case .identity:
                info = try await stageAsSent(content, into: file, declared: declared, name: name, documentID: documentID)
            case .gzip:
                info = try await stageGzip(content, into: file, declared: declared, name: name, documentID: documentID)
            }
            return StagedAttachment(info: info, path: try file.finish())
        } catch {
            file.discard()
            throw error
        }
    }

    private func stageAsSent<Chunks: AsyncSequence>(
        _ content: Chunks, into file: StagingFile, declared: Declared, name: String, documentID: String
    ) async throws -> AttachmentInfo where Chunks.Element == [UInt8] {
        var digest = AttachmentDigest.Running()
        for try await chunk in content {
            try checkLimit(file.count + chunk.count, declared, name, documentID)
            digest.update(chunk)
            try file.append(chunk)
        }
        let stored = digest.finalize()
        if let sent = declared.digest, sent != stored { throw AttachmentFailure.mismatch(name, documentID) }
        try checkLength(file.count, declared, name, documentID)
        return AttachmentInfo(contentType: declared.contentType, digest: stored, length: file.count, revpos: 0)
    }

    private func stageCompressing<Chunks: AsyncSequence>(
        _ content: Chunks, into file: StagingFile, declared: Declared, name: String, documentID: String
    ) async throws -> AttachmentInfo where Chunks.Element == [UInt8] {
        let compressor = CompressionAlgorithm.gzip(configuration: Gzip.couchConfiguration(level: compression.level)).compressor
        compressor.window = ByteBufferAllocator().buffer(capacity: AttachmentFiles.chunkSize)
        try compressor.startStream()
        defer { try? compressor.finishStream() }
        var written = AttachmentDigest.Running(), stored = AttachmentDigest.Running()
        var length = 0
        func emit(_ output: ByteBuffer) throws {
            try output.withUnsafeReadableBytes { bytes in
                stored.update(bytes)
                try file.append(bytes)
            }
        }
        for try await chunk in content {
            length += chunk.count
            try checkLimit(length, declared, name, documentID)
            written.update(chunk)
            var input = ByteBuffer(bytes: chunk)
            try input.compressStream(with: compressor, flush: .no, process: emit)
        }
        var end = ByteBuffer()
        try end.compressStream(with: compressor, flush: .finish, process: emit)
        let digest = stored.finalize()
        // A sender's digest may describe the stored (compressed) bytes or the content as written.
        if let sent = declared.digest, sent != digest, sent != written.finalize() { throw AttachmentFailure.mismatch(name, documentID) }
        try checkLength(length, declared, name, documentID)
        return AttachmentInfo(
            contentType: declared.contentType, digest: digest, length: length, revpos: 0, encoding: .gzip,
            encodedLength: file.count)
    }

    private func stageGzip<Chunks: AsyncSequence>(
        _ content: Chunks, into file: StagingFile, declared: Declared, name: String, documentID: String
    ) async throws -> AttachmentInfo where Chunks.Element == [UInt8] {
        let decompressor = CompressionAlgorithm.gzip().decompressor
        decompressor.window = ByteBufferAllocator().buffer(capacity: AttachmentFiles.chunkSize)
        try decompressor.startStream()
        defer { try? decompressor.finishStream() }
        var stored = AttachmentDigest.Running()
        var length = 0
        var crc = crc32(0, nil, 0)
        var tail: [UInt8] = []  // The last 8 bytes seen: the gzip trailer once the stream ends.
        var header: [UInt8] = []
        for try await chunk in content {
            if header.count < 3 { header += chunk.prefix(3 - header.count) }
            stored.update(chunk)
            try file.append(chunk)
            tail = Array((tail + chunk.suffix(8)).suffix(8))
            var input = ByteBuffer(bytes: chunk)
            do {
                try input.decompressStream(with: decompressor) { output in
                    length += output.readableBytes
                    try checkLimit(length, declared, name, documentID)
                    output.withUnsafeReadableBytes { bytes in
                        crc = crc32(crc, bytes.bindMemory(to: Bytef.self).baseAddress, uInt(bytes.count))
                    }
                }
            } catch let error as CloudantError {
                throw error
            } catch {
                throw AttachmentFailure.invalid("Attachment \(name) is not valid gzip data: \(error).", name, documentID)
            }
        }
        guard header == [0x1F, 0x8B, 8], tail.count == 8,
            Self.littleEndian(tail, at: 0) == UInt32(truncatingIfNeeded: crc),
            Self.littleEndian(tail, at: 4) == UInt32(truncatingIfNeeded: length)
        else {
            throw AttachmentFailure.invalid("Attachment \(name) is not complete gzip data (its checksum or size does not match).", name, documentID)
        }
        if let declaredLength = declared.length, declaredLength != length {
            throw AttachmentFailure.invalid("Attachment \(name) decodes to \(length) bytes, not its length \(declaredLength).", name, documentID)
        }
        let digest = stored.finalize()
        if let sent = declared.digest, sent != digest { throw AttachmentFailure.mismatch(name, documentID) }
        return AttachmentInfo(
            contentType: declared.contentType, digest: digest, length: length, revpos: 0, encoding: .gzip,
            encodedLength: file.count)
    }

    private static func littleEndian(_ bytes: [UInt8], at index: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[index + $1]) << (8 * UInt32($1)) }
    }

    private func checkLimit(_ length: Int, _ declared: Declared, _ name: String, _ documentID: String) throws {
        guard length <= declared.maxLength else {
            throw CloudantError(
                .attachmentTooLarge, "Attachment \(name) is larger than the \(declared.maxLength) bytes accepted.",
                context: .init(documentID: documentID, field: "_attachments.\(name)"))
        }
    }

    private func checkLength(_ length: Int, _ declared: Declared, _ name: String, _ documentID: String) throws {
        if let declaredLength = declared.length, declaredLength != length {
            throw AttachmentFailure.invalid("Attachment \(name) has \(length) bytes, not its declared length \(declaredLength).", name, documentID)
        }
    }
}
