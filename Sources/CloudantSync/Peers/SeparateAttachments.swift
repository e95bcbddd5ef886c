public import CloudantCore
internal import Foundation

/// One attachment a replicator moves on its own, in pieces, rather than inline in its document: what a
/// source says about it and its stored bytes (gzip for an attachment kept encoded, so the digest holds).
public struct PeerAttachment: Sendable {
    /// The MIME type.
    public var contentType: String
    /// How ``pieces`` are encoded (the attachment's stored form).
    public var encoding: AttachmentEncoding
    /// The length of the content as written.
    public var length: Int
    /// The source's digest of the stored bytes, when the pieces are exactly those bytes.
    public var digest: String?
    /// The generation that last set this content.
    public var revpos: Int
    /// The bytes, in pieces.
    public var pieces: AttachmentByteStream

    /// Describes an attachment in transit.
    public init(
        contentType: String, encoding: AttachmentEncoding, length: Int, digest: String?, revpos: Int,
        pieces: AttachmentByteStream
    ) {
        self.contentType = contentType
        self.encoding = encoding
        self.length = length
        self.digest = digest
        self.revpos = revpos
        self.pieces = pieces
    }

    /// The attachment's metadata as a stub member says it (`content_type`, `revpos`, `digest`, `length`,
    /// and `encoding` when encoded), for a target to put beside what it adds.
    var stubMembers: JSONObject {
        var object: JSONObject = [
            "content_type": .string(contentType), "revpos": .number(JSONNumber(revpos)),
            "length": .number(JSONNumber(length)),
        ]
        if let digest { object["digest"] = .string(digest) }
        if encoding != .identity { object["encoding"] = .string(encoding.rawValue) }
        return object
    }
}

/// Any sequence of byte pieces, type-erased so peers can hand one to another.
public struct AttachmentByteStream: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    private let makeIterator: @Sendable () -> AsyncIterator

    /// Wraps `base`.
    public init<Base: AsyncSequence & Sendable>(_ base: Base) where Base.Element == [UInt8] {
        makeIterator = {
            var iterator = base.makeAsyncIterator()
            return AsyncIterator { try await iterator.next() }
        }
    }

    /// Reads the pieces in order.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let nextPiece: () async throws -> [UInt8]?

        /// The next piece, or nil after the last.
        public mutating func next() async throws -> [UInt8]? { try await nextPiece() }
    }

    /// Starts reading.
    public func makeAsyncIterator() -> AsyncIterator { makeIterator() }
}

/// What the replicator does with attachments a source sent separately: each
/// `"follows_separately": true` stub in a fetched document is read from the source and handed to the
/// target, which answers the member to write in its place.
enum SeparateAttachments {
    /// The marker a source puts in a stub whose content it will send separately.
    static let marker = "follows_separately"

    /// Whether any attachment of `documents` follows separately.
    static func anyFollow(in documents: [JSONObject]) -> Bool {
        documents.contains { document in
            document["_attachments"]?.objectValue?.members.contains { $0.1[marker] == true } == true
        }
    }

    /// `documents` with every separately-following attachment moved from `source` to `target`, and the
    /// documents whose attachment could not be moved because of what it is (the source no longer has it, or
    /// sent other bytes than its stub promised): those are failures of that document alone. A failure of the
    /// replication itself (unreachable, refused credentials) is thrown once `retry` gives up.
    static func transfer(
        _ documents: [JSONObject], from source: any ReplicationPeer, to target: any ReplicationPeer, retry: RetryPolicy
    ) async throws -> (complete: [JSONObject], failures: [WriteFailure]) {
        guard anyFollow(in: documents) else { return (documents, []) }
        var result: [JSONObject] = []
        var failures: [WriteFailure] = []
        documents: for var document in documents {
            guard case .object(var attachments)? = document["_attachments"],
                let id = document["_id"]?.stringValue, let rev = document["_rev"]?.stringValue
            else {
                result.append(document)
                continue
            }
            for (name, member) in attachments.members where member[marker] == true {
                do {
                    attachments[name] = try await retry.run {
                        let attachment = try await source.attachment(
                            documentID: id, rev: rev, name: name, stub: member.objectValue ?? JSONObject())
                        return try await target.receive(attachment, documentID: id, name: name)
                    }
                } catch let error as CloudantError where error.concernsOneDocument {
                    failures.append(
                        WriteFailure(
                            id: id, rev: rev, error: error.couchDBName,
                            reason: "Its attachment \(name) could not be copied: \(error)", category: error.category))
                    MultipartUpload.discardSpooled(in: attachments)
                    continue documents
                }
            }
            document["_attachments"] = .object(attachments)
            result.append(document)
        }
        return (result, failures)
    }
}
