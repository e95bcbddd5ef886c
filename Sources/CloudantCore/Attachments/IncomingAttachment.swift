/// One member of a written document's `_attachments`, as the client sent it.
public enum IncomingAttachment: Sendable, Hashable {
    /// `"stub": true`: keep the attachment of the parent revision (its digest, when given, must match).
    case stub(digest: String?, revpos: Int?)
    /// New content: inline base64 `data`, or the bytes of a multipart part.
    case data(IncomingAttachmentData)
    /// Content a store has already received, streamed into a staging file beside it and digested on the
    /// way (``StagedAttachment``): the write moves the file into place without reading it into memory.
    case staged(StagedAttachment)
    /// Content the store already holds under `info.digest`, kept with its metadata, `revpos` included: what
    /// a `COPY` writes, as CouchDB's `set_new_att_revpos` leaves data already committed to disk alone. The
    /// write fails with `.missingStub` when the store has no content of that digest.
    case stored(AttachmentInfo)

    /// Parses one `_attachments` member.
    /// - Throws: `CloudantError.Code.invalidInput` naming the attachment when it is neither a stub nor
    ///   inline data, when its base64 is malformed, or when its name starts with `_`.
    public init(name: String, json: JSONValue, documentID: String?) throws {
        func invalid(_ message: String) -> CloudantError {
            CloudantError(.invalidInput, message, context: .init(documentID: documentID, field: "_attachments.\(name)"))
        }
        try Self.validate(name: name, documentID: documentID)
        guard case .object(let object) = json else { throw invalid("An attachment must be a JSON object.") }
        if object["stub"] == true {
            let revpos = object["revpos"]?.numberValue?.int64Value.map { Int($0) }
            self = .stub(digest: object["digest"]?.stringValue, revpos: revpos)
            return
        }
        if object["follows"] == true {
            throw invalid("'follows' attachments need a multipart/related request; send the data inline as base64.")
        }
        guard let base64 = object["data"]?.stringValue else {
            throw invalid("An attachment needs base64 'data' or 'stub': true.")
        }
        // `couch_att:inline_from_json/2`'s reason, word for word.
        guard let bytes = Base64.decode(base64) else { throw invalid("Invalid attachment data for \(name)") }
        self = .data(
            IncomingAttachmentData(
                contentType: object["content_type"]?.stringValue ?? "application/octet-stream", bytes: bytes,
                revpos: object["revpos"]?.numberValue?.int64Value.map { Int($0) }, digest: object["digest"]?.stringValue,
                senderEncoding: object["encoding"]?.stringValue.flatMap(AttachmentEncoding.init(rawValue:))))
    }

    /// Checks an attachment name as CouchDB does: not empty, not starting with `_`.
    /// - Throws: `CloudantError.Code.invalidInput` naming the attachment.
    public static func validate(name: String, documentID: String?) throws {
        func invalid(_ message: String) -> CloudantError {
            CloudantError(.invalidInput, message, context: .init(documentID: documentID, field: "_attachments.\(name)"))
        }
        guard !name.hasPrefix("_") else {
            throw invalid("Attachment name '\(name)' starts with prohibited character '_'")
        }
        guard !name.isEmpty else { throw invalid("Attachment names must not be empty.") }
    }
}

/// New attachment content as it arrived, before the store decides how to keep it.
///
/// Inline JSON `data` is always the content as written (CouchDB decodes gzip-stored attachments for
/// JSON); a multipart part may carry the gzip bytes its sender stores (`"encoding": "gzip"`). A `digest`
/// sent with the bytes is checked against them before anything is stored.
public struct IncomingAttachmentData: Sendable, Hashable {
    /// The MIME type (`content_type`, else the part's `Content-Type`, else `application/octet-stream`).
    public var contentType: String
    /// The bytes as they arrived, in ``encoding``.
    public var bytes: [UInt8]
    /// The encoding of ``bytes``: gzip only for a part sent encoded.
    public var encoding: AttachmentEncoding
    /// The length of the content as written, as the sender declared it (`length`); checked for gzip bytes.
    public var length: Int?
    /// The generation the sender says last set this content (kept by replicated writes).
    public var revpos: Int?
    /// The digest the sender computed, when it sent one.
    public var digest: String?
    /// For inline data, the encoding the sender says it stores the content in (`"encoding"` in the JSON,
    /// `att_encoding_info`): its `digest` then describes bytes we were not sent.
    public var senderEncoding: AttachmentEncoding?
    /// Whether the bytes came as a part of a multipart body rather than inline base64: a part's `digest` is
    /// always checked, as CouchDB checks it.
    public var isMultipartPart: Bool

    /// Creates incoming content.
    public init(
        contentType: String, bytes: [UInt8], encoding: AttachmentEncoding = .identity, length: Int? = nil,
        revpos: Int? = nil, digest: String? = nil, senderEncoding: AttachmentEncoding? = nil,
        isMultipartPart: Bool = false
    ) {
        self.contentType = contentType
        self.bytes = bytes
        self.encoding = encoding
        self.length = length
        self.revpos = revpos
        self.digest = digest
        self.senderEncoding = senderEncoding
        self.isMultipartPart = isMultipartPart
    }
}

/// Attachment content a store has streamed into a staging file: its metadata (the digest of the bytes as
/// stored, both lengths, the encoding) and where the file is. Only the store that staged it makes one, and
/// a write through that store moves the file into the store's attachment folder.
public struct StagedAttachment: Sendable, Hashable {
    /// The attachment's metadata; the write sets `revpos`.
    public let info: AttachmentInfo
    /// The staging file, inside the store's attachment folder.
    public let path: String

    /// Describes a staged file.
    package init(info: AttachmentInfo, path: String) {
        self.info = info
        self.path = path
    }

    /// The same file with `revpos` set: what a replicated write keeps from its sender.
    public func withRevpos(_ revpos: Int) -> StagedAttachment {
        var info = info
        info.revpos = revpos
        return StagedAttachment(info: info, path: path)
    }
}
