/// What a revision records about one attachment: its type, content identity, size and the generation at
/// which its content was last set (spec D-37, D-38). The bytes are stored once per digest.
public struct AttachmentInfo: Sendable, Hashable {
    /// The MIME type given when the attachment was written.
    public var contentType: String
    /// `"md5-" + base64(md5(bytes))`, CouchDB's content identity for attachments.
    public var digest: String
    /// The length of the content in bytes.
    public var length: Int
    /// The generation of the revision that last set this content.
    public var revpos: Int

    /// Creates attachment metadata.
    public init(contentType: String, digest: String, length: Int, revpos: Int) {
        self.contentType = contentType
        self.digest = digest
        self.length = length
        self.revpos = revpos
    }

    /// The CouchDB stub form: `{"content_type","revpos","digest","length","stub":true}`.
    public var stub: JSONValue {
        [
            "content_type": .string(contentType), "revpos": .number(JSONNumber(revpos)), "digest": .string(digest),
            "length": .number(JSONNumber(length)), "stub": true,
        ]
    }

    /// The CouchDB inline form with base64 `data` instead of `stub`/`length`.
    public func inline(base64 data: String) -> JSONValue {
        [
            "content_type": .string(contentType), "revpos": .number(JSONNumber(revpos)), "digest": .string(digest),
            "data": .string(data),
        ]
    }
}

/// The attachments of one revision, by name, as stored with the revision.
public struct AttachmentTable: Sendable, Hashable {
    /// The attachments by name.
    public var entries: [String: AttachmentInfo]

    /// Creates a table.
    public init(_ entries: [String: AttachmentInfo] = [:]) { self.entries = entries }

    /// Whether the revision has no attachments.
    public var isEmpty: Bool { entries.isEmpty }

    /// The names in byte order, the order they are written in.
    public var sortedNames: [String] { entries.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }

    /// The compact JSON the store keeps with each revision: `{"name":{"content_type","digest","length","revpos"}}`.
    public var storageJSON: JSONValue {
        .object(
            JSONObject(
                sortedNames.compactMap { name in
                    entries[name].map { info in
                        (
                            name,
                            [
                                "content_type": .string(info.contentType), "digest": .string(info.digest),
                                "length": .number(JSONNumber(info.length)), "revpos": .number(JSONNumber(info.revpos)),
                            ] as JSONValue
                        )
                    }
                }))
    }

    /// Reads the storage form back.
    /// - Throws: ``CloudantError/Code/invalidValue`` when a member is missing (a damaged row).
    public init(storageJSON: JSONValue) throws {
        guard case .object(let object) = storageJSON else {
            throw CloudantError(.invalidValue, "Stored attachment metadata is not an object; the row is damaged.")
        }
        var entries: [String: AttachmentInfo] = [:]
        for (name, value) in object.members {
            guard let contentType = value["content_type"]?.stringValue, let digest = value["digest"]?.stringValue,
                let length = value["length"]?.numberValue?.int64Value, let revpos = value["revpos"]?.numberValue?.int64Value
            else {
                throw CloudantError(
                    .invalidValue, "Stored attachment metadata is incomplete; the row is damaged.",
                    context: .init(field: name))
            }
            entries[name] = AttachmentInfo(contentType: contentType, digest: digest, length: Int(length), revpos: Int(revpos))
        }
        self.entries = entries
    }
}
