/// How an attachment's bytes are kept: as written, or gzip-compressed as CouchDB keeps compressible types.
/// The digest always describes the bytes in this encoding.
public enum AttachmentEncoding: String, Sendable, Hashable {
    /// The bytes as written.
    case identity
    /// A gzip member (RFC 1952) of the bytes as written.
    case gzip
}

/// What a revision records about one attachment: its type, content identity, sizes, encoding and the
/// generation at which its content was last set. The stored bytes are kept once per digest.
public struct AttachmentInfo: Sendable, Hashable {
    /// The MIME type given when the attachment was written.
    public var contentType: String
    /// `"md5-" + base64(md5(stored bytes))`: CouchDB's content identity, of the gzip bytes for an attachment
    /// stored gzip-encoded.
    public var digest: String
    /// The length of the content as written (CouchDB's `disk_len`), whatever its encoding.
    public var length: Int
    /// The generation of the revision that last set this content.
    public var revpos: Int
    /// How the bytes are stored.
    public var encoding: AttachmentEncoding
    /// The length of the stored bytes (CouchDB's `encoded_length`, `att_len`); ``length`` for identity.
    public var encodedLength: Int

    /// Creates attachment metadata; `encodedLength` defaults to `length`, as for identity bytes.
    public init(
        contentType: String, digest: String, length: Int, revpos: Int, encoding: AttachmentEncoding = .identity,
        encodedLength: Int? = nil
    ) {
        self.contentType = contentType
        self.digest = digest
        self.length = length
        self.revpos = revpos
        self.encoding = encoding
        self.encodedLength = encodedLength ?? length
    }

    /// The CouchDB stub form: `{"content_type","revpos","digest","length","stub":true}`, plus `encoding` and
    /// `encoded_length` for an encoded attachment when `showEncoding` (`att_encoding_info=true`).
    public func stub(showEncoding: Bool = false) -> JSONValue {
        var object: JSONObject = [
            "content_type": .string(contentType), "revpos": .number(JSONNumber(revpos)), "digest": .string(digest),
            "length": .number(JSONNumber(length)), "stub": true,
        ]
        addEncoding(to: &object, if: showEncoding)
        return .object(object)
    }

    /// The CouchDB stub form without encoding information.
    public var stub: JSONValue { stub() }

    /// The CouchDB inline form: base64 `data` of the content as written, instead of `stub`/`length`
    /// (CouchDB decodes gzip-stored attachments for JSON), plus `encoding` and `encoded_length` when
    /// `showEncoding`.
    public func inline(base64 data: String, showEncoding: Bool = false) -> JSONValue {
        var object: JSONObject = [
            "content_type": .string(contentType), "revpos": .number(JSONNumber(revpos)), "digest": .string(digest),
            "data": .string(data),
        ]
        addEncoding(to: &object, if: showEncoding)
        return .object(object)
    }

    /// The form a multipart writer needs: base64 `data` of the bytes *as stored*, with `length` (as written)
    /// and, for an encoded attachment, `encoding` and `encoded_length` — what CouchDB's multipart answers
    /// describe in their JSON part before sending the stored bytes as a part.
    public func stored(base64 data: String) -> JSONValue {
        var object: JSONObject = [
            "content_type": .string(contentType), "revpos": .number(JSONNumber(revpos)), "digest": .string(digest),
            "length": .number(JSONNumber(length)), "data": .string(data),
        ]
        addEncoding(to: &object, if: true)
        return .object(object)
    }

    private func addEncoding(to object: inout JSONObject, if show: Bool) {
        guard show, encoding != .identity else { return }
        object["encoding"] = .string(encoding.rawValue)
        object["encoded_length"] = .number(JSONNumber(encodedLength))
    }
}

/// The attachments of one revision, by name, as stored with the revision, in the document's order.
///
/// CouchDB keeps a document's attachments as a list: `_attachments` comes back in the order it was written
/// (a standalone attachment upload puts the new one first), and the order is part of the revision hash
/// (``RevisionHash``). ``order`` keeps it.
public struct AttachmentTable: Sendable, Hashable {
    /// The attachments by name.
    public var entries: [String: AttachmentInfo]
    /// The names in the document's order. Names of ``entries`` missing here follow in byte order; names
    /// here without an entry are skipped.
    public var order: [String]

    /// Creates a table.
    public init(_ entries: [String: AttachmentInfo] = [:], order: [String] = []) {
        self.entries = entries
        self.order = order
    }

    /// Whether the revision has no attachments.
    public var isEmpty: Bool { entries.isEmpty }

    /// The names in byte order.
    public var sortedNames: [String] { entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }

    /// The names in the document's order (see ``order``): the order they are written and hashed in.
    public var orderedNames: [String] {
        var seen = Set<String>()
        var names: [String] = []
        names.reserveCapacity(entries.count)
        for name in order where entries[name] != nil && seen.insert(name).inserted { names.append(name) }
        if names.count < entries.count { names += sortedNames.filter { !seen.contains($0) } }
        return names
    }

    /// The compact JSON the store keeps with each revision:
    /// `{"name":{"content_type","digest","length","revpos"[,"encoding","encoded_length"]}}`.
    public var storageJSON: JSONValue {
        .object(
            JSONObject(
                orderedNames.compactMap { name in
                    entries[name].map { info in
                        var stored: JSONObject = [
                            "content_type": .string(info.contentType), "digest": .string(info.digest),
                            "length": .number(JSONNumber(info.length)), "revpos": .number(JSONNumber(info.revpos)),
                        ]
                        if info.encoding != .identity {
                            stored["encoding"] = .string(info.encoding.rawValue)
                            stored["encoded_length"] = .number(JSONNumber(info.encodedLength))
                        }
                        return (name, .object(stored))
                    }
                }))
    }

    /// Reads the storage form back. Rows written before encodings existed hold identity bytes.
    /// - Throws: `CloudantError.Code.invalidInput` when a member is missing (a damaged row).
    public init(storageJSON: JSONValue) throws {
        guard case .object(let object) = storageJSON else {
            throw CloudantError(.invalidInput, "Stored attachment metadata is not an object; the row is damaged.")
        }
        var entries: [String: AttachmentInfo] = [:]
        order = object.keys
        for (name, value) in object.members {
            guard let contentType = value["content_type"]?.stringValue, let digest = value["digest"]?.stringValue,
                let length = value["length"]?.numberValue?.int64Value, let revpos = value["revpos"]?.numberValue?.int64Value,
                let encoding = AttachmentEncoding(rawValue: value["encoding"]?.stringValue ?? "identity")
            else {
                throw CloudantError(
                    .invalidInput, "Stored attachment metadata is incomplete; the row is damaged.",
                    context: .init(field: name))
            }
            entries[name] = AttachmentInfo(
                contentType: contentType, digest: digest, length: Int(length), revpos: Int(revpos), encoding: encoding,
                encodedLength: value["encoded_length"]?.numberValue?.int64Value.map { Int($0) })
        }
        self.entries = entries
    }
}
