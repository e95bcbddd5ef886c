internal import CloudantCore
internal import CloudantStore

extension MultipartRelated {
    /// A document ready to send: `multipart/related` when it has attachment bytes to send, else plain JSON.
    /// Its body is a list of ``BodySegment``s, so large attachments stream from the store as it is sent.
    struct Encoded: Sendable {
        /// The `Content-Type` of the body.
        var contentType: String
        /// The body, in order.
        var segments: [BodySegment]
    }

    /// Encodes a document read with attachments as stored (`ReadOptions.attachmentsAsStored`) as CouchDB
    /// sends it to a replicator: the JSON part with those attachments marked `"follows": true` (with
    /// `length` and, for gzip-stored ones, `encoding` and `encoded_length`; no `data`), then one part per
    /// attachment in the JSON's order holding the stored bytes, with `Content-Encoding: gzip` for encoded
    /// ones — so their digest describes the bytes that travel. Stubs stay stubs; a stub marked
    /// `follows_separately` (`ReadOptions.inlineAttachmentLimit`) becomes a part read from the store
    /// while the answer is sent. A document with nothing to send as a part is plain `application/json`, as
    /// CouchDB answers it.
    static func encode(_ document: JSONObject, boundary: String) -> Encoded {
        var document = document
        let id = document["_id"]?.stringValue ?? "", rev = document["_rev"]?.stringValue ?? ""
        var following: [(name: String, contentType: String, encoding: String?, body: BodySegment)] = []
        if case .object(var attachments) = document["_attachments"] {
            for name in attachments.keys {
                guard case .object(let attachment) = attachments[name] else { continue }
                let body: BodySegment
                if let data = attachment["data"]?.stringValue, let bytes = Base64.decode(data) {
                    body = .bytes(bytes)
                } else if attachment["follows_separately"] == true {
                    let stored = attachment["encoded_length"] ?? attachment["length"]
                    body = .attachment(documentID: id, rev: rev, name: name, length: Int(stored?.numberValue?.int64Value ?? 0))
                } else {
                    continue
                }
                let contentType = attachment["content_type"]?.stringValue ?? "application/octet-stream"
                let encoding = attachment["encoding"]?.stringValue
                // CouchDB's member order: content_type, revpos, digest, length, follows, encoding, encoded_length.
                var follows = JSONObject()
                for key in ["content_type", "revpos", "digest"] { follows[key] = attachment[key] }
                follows["length"] = attachment["length"] ?? .number(JSONNumber(body.count))
                follows["follows"] = true
                if let encoding {
                    follows["encoding"] = .string(encoding)
                    follows["encoded_length"] = .number(JSONNumber(body.count))
                }
                attachments[name] = .object(follows)
                following.append((name, contentType, encoding, body))
            }
            document["_attachments"] = .object(attachments)
        }
        let json = JSONValue.object(document).jsonBytes()
        guard !following.isEmpty else { return Encoded(contentType: "application/json", segments: [.bytes(json)]) }
        let writer = MultipartWriter(boundary: boundary)
        var segments: [BodySegment] = [.bytes(writer.partHead(headers: [("Content-Type", "application/json")], isFirst: true) + json)]
        for attachment in following {
            var headers = [
                ("Content-Disposition", "attachment; filename=\"\(quoted(attachment.name))\""),
                ("Content-Type", attachment.contentType), ("Content-Length", String(attachment.body.count)),
            ]
            if let encoding = attachment.encoding { headers.append(("Content-Encoding", encoding)) }
            segments.append(.bytes(writer.partHead(headers: headers, isFirst: false)))
            segments.append(attachment.body)
        }
        segments.append(.bytes(writer.closing()))
        return Encoded(contentType: writer.contentType("related"), segments: segments)
    }

    /// `name` escaped for a quoted-string (RFC 9110 §5.6.4).
    private static func quoted(_ name: String) -> String {
        var escaped = ""
        for character in name {
            if character == "\\" || character == "\"" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }
}

/// A piece of a response body: bytes in hand, or an attachment's stored bytes read from the store while
/// the response is written.
enum BodySegment: Sendable {
    case bytes([UInt8])
    case attachment(documentID: String, rev: String, name: String, length: Int)

    /// Its length in bytes.
    var count: Int {
        switch self {
        case .bytes(let bytes): bytes.count
        case .attachment(_, _, _, let length): length
        }
    }
}
