internal import CloudantCore

/// The errors new attachment content is refused with, worded the same on every path that checks it.
enum AttachmentFailure {
    /// Content that is not what it claims (damaged gzip, a wrong length).
    static func invalid(_ message: String, _ name: String, _ documentID: String) -> CloudantError {
        CloudantError(.invalidInput, message, context: .init(documentID: documentID, field: "_attachments.\(name)"))
    }

    /// Bytes that do not match the digest sent with them (CouchDB's `content_md5_mismatch`).
    static func mismatch(_ name: String, _ documentID: String) -> CloudantError {
        CloudantError(
            .attachmentDigestMismatch,
            "Possible message corruption: attachment \(name) does not match the digest sent with it. Nothing was stored; send it again.",
            context: .init(documentID: documentID, field: "_attachments.\(name)"))
    }
}
