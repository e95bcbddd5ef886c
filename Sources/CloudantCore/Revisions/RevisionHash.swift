internal import Crypto

/// Mints the hash half of a new revision id (`"<generation>-<hash>"`) exactly as CouchDB does, so the same
/// edit made here and on CouchDB gets the same `_rev` and identical writes on two replicas never conflict.
///
/// CouchDB (`couch_db:new_revid/1`) hashes, with MD5, `term_to_binary([Deleted, OldStart, OldRev, Body, Atts],
/// [{minor_version, 1}])` where
/// - `Deleted` is the atom `true` or `false`;
/// - `OldStart` is the parent's generation and `OldRev` its hash: the 16 raw bytes of a 32-hex-digit hash
///   (`couch_doc:parse_revid/1`), the hash's bytes otherwise; for a document's first revision they are the
///   integers `0` and `0`;
/// - `Body` is the body as jiffy decoded it, `{[{Name, Value}, …]}` in written order, without the metadata
///   members `couch_doc:transfer_fields/3` takes out (`_id`, `_rev`, `_attachments`, `_deleted`,
///   `_revisions`, `_revs_info`, `_conflicts`, `_deleted_conflicts`, `_local_seq`) but with `_access` and the
///   replicator's `_replication_*` members it keeps (``ErlangTermWriter`` writes it);
/// - `Atts` is `[{Name, ContentType, Md5}]` with the raw 16 bytes of each attachment's digest (of the bytes as
///   stored, gzip for the compressible types), in the *reverse* of the document's attachment order (a
///   `lists:foldl/3` that prepends).
///
/// A deleted document written again without `_rev` is minted as an edit of its winning deleted revision
/// (`couch_db_updater:merge_rev_tree/4`): pass that revision as the parent.
///
/// ```swift
/// RevisionHash.mint(body: JSONObject(), parentRevision: nil, deleted: false, attachments: [])
///     // "967a00dff5e02add41819138abb3284d", the `1-…` of an empty document on CouchDB
/// ```
public enum RevisionHash {
    /// What a revision hash records about one attachment: its name, MIME type and content digest.
    public struct AttachmentDigest: Sendable, Hashable {
        /// The attachment's name in `_attachments`.
        public var name: String
        /// The attachment's MIME type.
        public var contentType: String
        /// The content identity, `"md5-" + base64(md5(stored bytes))`.
        public var digest: String

        /// Creates an attachment entry for ``RevisionHash/mint(body:parentRevision:deleted:attachments:)``.
        public init(name: String, contentType: String, digest: String) {
            self.name = name
            self.contentType = contentType
            self.digest = digest
        }
    }

    /// Members of a written document that are CouchDB metadata rather than body: left out of the hash.
    package static let metadataMembers: Set<String> = [
        "_id", "_rev", "_attachments", "_deleted", "_revisions", "_revs_info", "_conflicts", "_deleted_conflicts",
        "_local_seq",
    ]

    /// The 32-character lowercase hex hash of a new revision, CouchDB's `new_revid`.
    ///
    /// ```swift
    /// let hash = RevisionHash.mint(
    ///     body: ["title": "Walk"], parentRevision: "1-967a00dff5e02add41819138abb3284d", deleted: false,
    ///     attachments: [.init(name: "photo.jpg", contentType: "image/jpeg", digest: "md5-…")])
    /// ```
    ///
    /// - Parameters:
    ///   - body: The document's members in written order; metadata members (`_id`, `_rev`, …) are ignored.
    ///   - parentRevision: The full id (`"2-…"`) of the revision this one edits, or `nil` for a new document.
    ///   - deleted: Whether the new revision is a deletion.
    ///   - attachments: The new revision's attachments, in the document's order (`_attachments` as written).
    /// - Returns: 32 lowercase hexadecimal characters.
    public static func mint(
        body: JSONObject, parentRevision: String?, deleted: Bool, attachments: [AttachmentDigest]
    ) -> String {
        let parent = parentRevision.flatMap { try? RevisionID(parsing: $0) }
        return mint(body: body, parent: parent, deleted: deleted, attachments: attachments)
    }

    /// ``mint(body:parentRevision:deleted:attachments:)`` with the parent already parsed.
    public static func mint(
        body: JSONObject, parent: RevisionID?, deleted: Bool, attachments: [AttachmentDigest]
    ) -> String {
        let term = revisionTerm(body: body, parent: parent, deleted: deleted, attachments: attachments)
        return lowercaseHex(Insecure.MD5.hash(data: term))
    }

    /// The revision of a body stored with its members sorted by name at every depth (a bulk import's): the
    /// revision CouchDB gives that sorted body, whatever order `body` holds its members in.
    /// `jsonByteCount`, the body's JSON size when known, sizes the term's buffer (a term takes a little more
    /// than the JSON: five bytes of tag and length per string against two quotes), so it is written without
    /// growing.
    package static func mintSorted(body: JSONObject, jsonByteCount: Int? = nil) -> String {
        let term = revisionTerm(
            body: body, parent: nil, deleted: false, attachments: [], sortingMembers: true,
            capacity: jsonByteCount.map { $0 + $0 / 2 + 64 })
        return lowercaseHex(Insecure.MD5.hash(data: term))
    }

    /// The bytes CouchDB hashes: `term_to_binary([Deleted, OldStart, OldRev, Body, Atts], [{minor_version, 1}])`.
    package static func revisionTerm(
        body: JSONObject, parent: RevisionID?, deleted: Bool, attachments: [AttachmentDigest],
        sortingMembers: Bool = false, capacity: Int? = nil
    ) -> [UInt8] {
        var writer = ErlangTermWriter(capacity: capacity ?? 64 + body.count * 24)
        writer.sortsMembers = sortingMembers
        writer.writeVersion()
        writer.writeListHeader(count: 5)
        writer.writeBoolean(deleted)
        if let parent {
            writer.writeInteger(Int64(parent.generation))
            writer.writeBinary(revisionBytes(parent.hash))
        } else {
            writer.writeInteger(0)
            writer.writeInteger(0)
        }
        writer.writeTupleHeader(arity: 1)
        if body.members.contains(where: { $0.key.utf8.first == UInt8(ascii: "_") && metadataMembers.contains($0.key) }) {
            writer.writeProplist(body.members.filter { !metadataMembers.contains($0.key) })
        } else {
            writer.writeProplist(body.members)
        }
        if attachments.isEmpty {
            writer.writeNil()
        } else {
            writer.writeListHeader(count: attachments.count)
            for attachment in attachments.reversed() {
                writer.writeTupleHeader(arity: 3)
                writer.writeBinary(attachment.name)
                writer.writeBinary(attachment.contentType)
                writer.writeBinary(digestBytes(attachment.digest))
            }
            writer.writeNil()
        }
        writer.writeNil()
        return writer.bytes
    }

    /// A revision hash as CouchDB holds it: 32 hex digits as their 16 bytes, anything else as its own bytes.
    static func revisionBytes(_ hash: String) -> [UInt8] {
        let text = Array(hash.utf8)
        guard text.count == 32, let bytes = hexBytes(text) else { return text }
        return bytes
    }

    /// The raw MD5 of an attachment digest `md5-<base64>`; CouchDB's `<<>>` for any other form.
    static func digestBytes(_ digest: String) -> [UInt8] {
        guard digest.hasPrefix("md5-"), let bytes = Base64.decode(String(digest.dropFirst(4))) else { return [] }
        return bytes
    }

    private static func hexBytes(_ text: [UInt8]) -> [UInt8]? {
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var index = 0
        while index < text.count {
            guard let high = value(text[index]), let low = value(text[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

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
