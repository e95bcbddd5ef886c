internal import CloudantCore

/// Turns new attachment content into what a revision stores: the bytes as CouchDB would keep them (gzip
/// for compressible types) and their metadata, after checking what the sender vouched for.
///
/// Checks, before anything is stored:
/// - gzip bytes (a multipart part sent encoded) must decode, to exactly the declared `length`;
/// - a `digest` sent with a multipart part, or with inline data in a replicated write, must describe the
///   bytes: the stored form, or the content as written (a sender that keeps it unencoded). Inline data
///   whose sender says it keeps it encoded (`"encoding"`) cannot be checked against a digest of bytes we
///   were not sent, and an interactive write's inline `digest` is ignored, as CouchDB ignores both.
struct AttachmentEncoder {
    let compression: AttachmentCompression

    /// The stored metadata and bytes for `data`, set at `generation` in an interactive edit or keeping the
    /// sender's `revpos` in a replicated one.
    /// - Throws: `CloudantError` `.attachmentDigestMismatch` when the bytes do not match the sent digest,
    ///   `.invalidInput` for damaged gzip data or a length that does not match.
    func encode(
        _ data: IncomingAttachmentData, name: String, documentID: String, generation: Int, interactive: Bool
    ) throws -> (AttachmentInfo, [UInt8]) {
        let fromMultipart = data.isMultipartPart
        let revpos = interactive ? generation : data.revpos ?? generation
        switch data.encoding {
        case .gzip:
            guard let length = data.length else {
                throw AttachmentFailure.invalid("Attachment \(name) is gzip-encoded but gives no length.", name, documentID)
            }
            let decoded: [UInt8]
            do {
                decoded = try Gzip.decode(data.bytes, limit: length)
            } catch {
                throw AttachmentFailure.invalid("Attachment \(name) is not valid gzip data: \(error.reason).", name, documentID)
            }
            guard decoded.count == length else {
                throw AttachmentFailure.invalid("Attachment \(name) decodes to \(decoded.count) bytes, not its length \(length).", name, documentID)
            }
            let digest = AttachmentDigest.of(data.bytes)
            if let sent = data.digest, sent != digest { throw AttachmentFailure.mismatch(name, documentID) }
            let info = AttachmentInfo(
                contentType: data.contentType, digest: digest, length: length, revpos: revpos, encoding: .gzip,
                encodedLength: data.bytes.count)
            return (info, data.bytes)
        case .identity:
            let encoded = compression.compresses(data.contentType) ? Gzip.encode(data.bytes, level: compression.level) : nil
            let stored = encoded ?? data.bytes
            let digest = AttachmentDigest.of(stored)
            if let sent = data.digest, sent != digest, fromMultipart || !interactive {
                let senderKeepsItEncoded = !fromMultipart && data.senderEncoding.map { $0 != .identity } == true
                if !senderKeepsItEncoded, encoded == nil || sent != AttachmentDigest.of(data.bytes) {
                    throw AttachmentFailure.mismatch(name, documentID)
                }
            }
            let info = AttachmentInfo(
                contentType: data.contentType, digest: digest, length: data.bytes.count, revpos: revpos,
                encoding: encoded == nil ? .identity : .gzip, encodedLength: stored.count)
            return (info, stored)
        }
    }
}
