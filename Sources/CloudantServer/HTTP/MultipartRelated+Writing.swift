internal import CloudantCore

extension MultipartRelated {
    /// A document ready to send: `multipart/related` when it has attachment bytes to send, else plain JSON.
    struct Encoded: Sendable {
        /// The `Content-Type` of ``body``.
        var contentType: String
        /// The bytes.
        var body: [UInt8]
    }

    /// Encodes a document read with attachments as stored (``ReadOptions/attachmentsAsStored``) as CouchDB
    /// sends it to a replicator: the JSON part with those attachments marked `"follows": true` (with
    /// `length` and, for gzip-stored ones, `encoding` and `encoded_length`; no `data`), then one part per
    /// attachment in the JSON's order holding the stored bytes, with `Content-Encoding: gzip` for encoded
    /// ones — so their digest describes the bytes that travel. Stubs stay stubs. A document with nothing to
    /// send as a part is plain `application/json`, as CouchDB answers it.
    static func encode(_ document: JSONObject, boundary: String) -> Encoded {
        var document = document
        var following: [(name: String, contentType: String, encoding: String?, bytes: [UInt8])] = []
        if case .object(var attachments) = document["_attachments"] {
            for name in attachments.keys {
                guard case .object(let attachment) = attachments[name], let data = attachment["data"]?.stringValue,
                    let bytes = Base64.decode(data)
                else { continue }
                let contentType = attachment["content_type"]?.stringValue ?? "application/octet-stream"
                let encoding = attachment["encoding"]?.stringValue
                // CouchDB's member order: content_type, revpos, digest, length, follows, encoding, encoded_length.
                var follows = JSONObject()
                for key in ["content_type", "revpos", "digest"] { follows[key] = attachment[key] }
                follows["length"] = attachment["length"] ?? .number(JSONNumber(bytes.count))
                follows["follows"] = true
                if let encoding {
                    follows["encoding"] = .string(encoding)
                    follows["encoded_length"] = .number(JSONNumber(bytes.count))
                }
                attachments[name] = .object(follows)
                following.append((name, contentType, encoding, bytes))
            }
            document["_attachments"] = .object(attachments)
        }
        let json = JSONValue.object(document).jsonBytes()
        guard !following.isEmpty else { return Encoded(contentType: "application/json", body: json) }
        var writer = MultipartWriter(boundary: boundary)
        writer.addPart(headers: [("Content-Type", "application/json")], body: json)
        for attachment in following {
            var headers = [
                ("Content-Disposition", "attachment; filename=\"\(quoted(attachment.name))\""),
                ("Content-Type", attachment.contentType), ("Content-Length", String(attachment.bytes.count)),
            ]
            if let encoding = attachment.encoding { headers.append(("Content-Encoding", encoding)) }
            writer.addPart(headers: headers, body: attachment.bytes)
        }
        return Encoded(contentType: writer.contentType("related"), body: writer.finish())
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
