internal import Crypto

/// Mints the hash half of a new revision id (`"<generation>-<hash>"`), deterministically.
///
/// The hash is the lowercase hex MD5 of the canonical JSON (`JSONValue.canonicalJSONBytes()`) of
///
/// ```json
/// {"attachments":[[name,content_type,digest],…],"body":{…},"deleted":false,"parent":"1-abc…"}
/// ```
///
/// where `attachments` are sorted by the UTF-8 bytes of their names, `body` leaves out every top-level member
/// whose name starts with `_` (CouchDB metadata), and `parent` is `null` for a first revision.
///
/// Why deterministic: the same edit of the same parent gets the same revision id, so a write retried after a
/// timeout (that in fact committed) is recognised instead of creating a conflicting sibling. Peers never
/// recompute our hashes, so the choice of fields is ours; it is 32 lowercase hex characters
/// because CouchDB stores such hashes as 16 raw bytes.
///
/// - Important: The input layout and the canonical JSON format are frozen: changing either once data exists
///   would make retried writes of old documents create spurious conflicts. `RevisionHashTests` pins known
///   hashes.
///
/// ```swift
/// let hash = RevisionHash.mint(body: ["title": "Walk"], parentRevision: nil, deleted: false, attachments: [])
/// let rev = "1-\(hash)"
/// ```
public enum RevisionHash {
    /// What a revision hash records about one attachment: its name, MIME type and content digest.
    public struct AttachmentDigest: Sendable, Hashable {
        /// The attachment's name in `_attachments`.
        public var name: String
        /// The attachment's MIME type.
        public var contentType: String
        /// The content identity, `"md5-" + base64(md5(bytes))`.
        public var digest: String

        /// Creates an attachment entry for ``RevisionHash/mint(body:parentRevision:deleted:attachments:)``.
        public init(name: String, contentType: String, digest: String) {
            self.name = name
            self.contentType = contentType
            self.digest = digest
        }
    }

    /// The 32-character lowercase hex hash of a new revision.
    ///
    /// ```swift
    /// let hash = RevisionHash.mint(
    ///     body: ["title": "Walk"], parentRevision: "1-967a00dff5e02add41819138abb3284d", deleted: false,
    ///     attachments: [.init(name: "photo.jpg", contentType: "image/jpeg", digest: "md5-…")])
    /// ```
    ///
    /// - Parameters:
    ///   - body: The document's members; top-level members whose names start with `_` are ignored.
    ///   - parentRevision: The full id (`"2-…"`) of the revision this one edits, or `nil` for a new document.
    ///   - deleted: Whether the new revision is a deletion.
    ///   - attachments: The new revision's attachments, in any order.
    /// - Returns: 32 lowercase hexadecimal characters. Equal inputs give equal hashes; a change in any
    ///   input (a body member, the parent, the deleted flag, an attachment) gives a different one.
    public static func mint(
        body: JSONObject, parentRevision: String?, deleted: Bool, attachments: [AttachmentDigest]
    ) -> String {
        mint(parentRevision: parentRevision, deleted: deleted, attachments: attachments) { writer in
            writer.write(body, skipping: { $0.hasPrefix("_") })
        }
    }

    /// ``mint(body:parentRevision:deleted:attachments:)`` for a body whose canonical JSON the caller already
    /// has (`JSONValue.canonicalJSONBytes()` of a body with no `_` members): the same hash, without
    /// serialising the body again.
    ///
    /// ```swift
    /// let canonical = JSONValue.object(body).canonicalJSONBytes()
    /// RevisionHash.mint(canonicalBody: canonical, parentRevision: nil, deleted: false, attachments: [])
    ///     == RevisionHash.mint(body: body, parentRevision: nil, deleted: false, attachments: [])   // true
    /// ```
    public static func mint(
        canonicalBody: [UInt8], parentRevision: String?, deleted: Bool, attachments: [AttachmentDigest]
    ) -> String {
        mint(parentRevision: parentRevision, deleted: deleted, attachments: attachments) { writer in
            canonicalBody.withUnsafeBufferPointer { writer.appendRaw($0) }
        }
    }

    /// ``mint(canonicalBody:parentRevision:deleted:attachments:)`` for a body whose canonical JSON the caller
    /// holds in pieces (the members of a stored body, in sorted order): `feedingCanonicalBody` hands each piece,
    /// in order, to the function it is given, which hashes it in place. Nothing is copied: put together into
    /// one buffer first, the copies and the buffer's growth were a tenth of preparing a 1 KB write.
    ///
    /// ```swift
    /// RevisionHash.mint(parentRevision: nil, deleted: false, attachments: []) { hash in
    ///     for piece in pieces { piece.withUnsafeBytes(hash) }
    /// }
    /// ```
    package static func mint(
        parentRevision: String?, deleted: Bool, attachments: [AttachmentDigest],
        feedingCanonicalBody: ((UnsafeRawBufferPointer) -> Void) -> Void
    ) -> String {
        var md5 = Insecure.MD5()
        let (prefix, suffix) = envelope(parentRevision: parentRevision, deleted: deleted, attachments: attachments)
        md5.update(data: prefix)
        feedingCanonicalBody { md5.update(bufferPointer: $0) }
        md5.update(data: suffix)
        return lowercaseHex(md5.finalize())
    }

    private static func mint(
        parentRevision: String?, deleted: Bool, attachments: [AttachmentDigest], writingBody: (inout JSONWriter) -> Void
    ) -> String {
        var writer = JSONWriter.canonical(capacity: 1024)
        writingBody(&writer)
        return mint(parentRevision: parentRevision, deleted: deleted, attachments: attachments) { hash in
            writer.output.withUnsafeBytes(hash)
        }
    }

    /// The canonical JSON of `{"attachments", "body", "deleted", "parent"}` (in that sorted order) before and
    /// after the body.
    private static func envelope(
        parentRevision: String?, deleted: Bool, attachments: [AttachmentDigest]
    ) -> (prefix: [UInt8], suffix: [UInt8]) {
        let prefix: [UInt8]
        if attachments.isEmpty {
            prefix = firstRevisionPrefix
        } else {
            let sortedAttachments = attachments.sorted { lhs, rhs in
                // Names are unique within a revision; the other fields only make the order total regardless.
                if lhs.name != rhs.name { return JSONWriter.precedesInUTF8(lhs.name, rhs.name) }
                if lhs.contentType != rhs.contentType { return JSONWriter.precedesInUTF8(lhs.contentType, rhs.contentType) }
                return JSONWriter.precedesInUTF8(lhs.digest, rhs.digest)
            }
            var writer = JSONWriter.canonical(capacity: 128)
            writer.appendRaw(#"{"attachments":["#)
            for (position, attachment) in sortedAttachments.enumerated() {
                writer.appendRaw(position == 0 ? "[" : ",[")
                writer.write(attachment.name)
                writer.appendRaw(",")
                writer.write(attachment.contentType)
                writer.appendRaw(",")
                writer.write(attachment.digest)
                writer.appendRaw("]")
            }
            writer.appendRaw(#"],"body":"#)
            prefix = writer.output
        }
        guard let parentRevision else { return (prefix, deleted ? deletedFirstRevisionSuffix : firstRevisionSuffix) }
        var writer = JSONWriter.canonical(capacity: 64)
        writer.appendRaw(deleted ? #","deleted":true,"parent":"# : #","deleted":false,"parent":"#)
        writer.write(parentRevision)
        writer.appendRaw("}")
        return (prefix, writer.output)
    }

    /// The hash of a document's first revision without attachments, from its body's canonical JSON: what
    /// ``mint(body:parentRevision:deleted:attachments:)`` returns for that body with no parent, not deleted,
    /// without serialising the body again.
    ///
    /// ```swift
    /// let canonical = JSONValue.object(body).canonicalJSONBytes()
    /// RevisionHash.mintFirst(canonicalBody: canonical) == RevisionHash.mint(body: body, parentRevision: nil, deleted: false, attachments: [])
    /// ```
    ///
    /// - Parameter canonicalBody: `JSONValue.canonicalJSONBytes()` of a body with no `_` members (this
    ///   function cannot filter them out of bytes; the caller checks).
    public static func mintFirst(canonicalBody: [UInt8]) -> String {
        // The canonical input of `mint` with `attachments: []`, `parent: null`, `deleted: false`, its keys
        // in sorted order around the body.
        var md5 = Insecure.MD5()
        md5.update(data: firstRevisionPrefix)
        md5.update(data: canonicalBody)
        md5.update(data: firstRevisionSuffix)
        return lowercaseHex(md5.finalize())
    }

    private static let firstRevisionPrefix = Array(#"{"attachments":[],"body":"#.utf8)
    private static let firstRevisionSuffix = Array(#","deleted":false,"parent":null}"#.utf8)
    private static let deletedFirstRevisionSuffix = Array(#","deleted":true,"parent":null}"#.utf8)

    private static func lowercaseHex(_ digest: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
