internal import CloudantCore
internal import Foundation

/// The part of an interactive write that does not need the stored tree, done before the write
/// transaction and in parallel: the body's bytes, and the revision hash minted on the assumption that
/// the parent is the revision the write names. That assumption holds for every write except the
/// recreation of a deleted document; the writer checks it and mints again when it does not hold.
///
/// A class: the writer takes each one out of the batch, and copying a struct of a dozen references cost a
/// retain and a release each (7 % of the writer's time in a load with three indexes).
final class PreparedWrite: Sendable {
    let incoming: IncomingDocument
    let body: [UInt8]
    let kind: String?
    /// The hash for parent `incoming.rev`, or nil when an attachment stub needs the parent's table.
    let speculativeHash: String?
    /// For a document without `_rev`: its first revision as the writer stores it, when its id is free.
    let firstRevision: FirstRevision?
    /// New attachment content as it will be stored (compressed and digested here, off the writer), with
    /// `revpos` still to be set by the writer; or why it cannot be stored.
    let encodedAttachments: Result<[String: EncodedAttachment], CloudantError>
    /// The JSON index entries of the body against the catalogue given (``IndexSnapshot/entries(id:body:)``),
    /// when one was and the document has an id and is live.
    let indexEntries: [[[UInt8]]?]?

    /// One attachment's stored metadata and bytes.
    struct EncodedAttachment: Sendable {
        var info: AttachmentInfo
        var content: AttachmentStorage.Content
    }

    /// - Parameters:
    ///   - capacity: The bytes to reserve for the body: in a batch, the size of the one before it (growing a
    ///     256-byte buffer to fit 1 KB took three copies, 2 % of preparing the bulk-insert benchmark's writes).
    ///   - indexes: The catalogue to compute the body's index entries against (see ``IndexSnapshot``).
    init(
        _ incoming: IncomingDocument, compression: AttachmentCompression = .couchDB, capacity: Int = 256,
        indexes: IndexSnapshot? = nil
    ) {
        self.incoming = incoming
        if let indexes, let id = incoming.id, !incoming.deleted, !id.hasPrefix("_design/") {
            indexEntries = indexes.entries(id: id, body: incoming.body)
        } else {
            indexEntries = nil
        }
        var writer = JSONWriter(capacity: capacity)
        writer.write(incoming.body)
        body = writer.output
        kind = EntityDocumentFormat.kindName(in: incoming.body)
        let encoder = AttachmentEncoder(compression: compression)
        var table = AttachmentTable(order: incoming.attachmentOrder)
        var encoded: [String: EncodedAttachment] = [:]
        var needsParent = false
        var failure: CloudantError?
        for (name, attachment) in incoming.attachments ?? [:] where failure == nil {
            switch attachment {
            case .stub: needsParent = true
            case .stored(let info):
                table.entries[name] = info
            case .staged(let staged):
                table.entries[name] = staged.info
                encoded[name] = EncodedAttachment(
                    info: staged.info, content: .staged(path: staged.path, length: staged.info.encodedLength))
            case .data(let data):
                do {
                    let (info, bytes) = try encoder.encode(
                        data, name: name, documentID: incoming.id ?? "", generation: 0, interactive: true)
                    table.entries[name] = info
                    encoded[name] = EncodedAttachment(info: info, content: .bytes(bytes))
                } catch let error as CloudantError {
                    failure = error
                } catch {
                    failure = CloudantError(.invalidInput, "Attachment \(name) cannot be stored.", underlying: error)
                }
            }
        }
        encodedAttachments = failure.map { .failure($0) } ?? .success(encoded)
        let hash =
            needsParent || failure != nil
            ? nil : Self.mint(incoming, parent: incoming.rev, attachments: table)
        speculativeHash = hash
        firstRevision = incoming.rev == nil ? hash.map { FirstRevision(hash: $0, deleted: incoming.deleted) } : nil
    }

    /// A new document's revision `1-hash` and its one-node tree in storage form: what the writer binds for a
    /// document whose id is free, encoded here so the writer does not (measured: building and encoding the
    /// tree and the revision's text took a third of the writer's own work in the bulk-insert benchmark).
    struct FirstRevision: Sendable {
        let hash: String
        /// `1-hash`.
        let rev: String
        let encodedTree: [UInt8]

        init(hash: String, deleted: Bool) {
            self.hash = hash
            rev = "1-" + hash
            encodedTree = RevisionTree.encodedFirstRevision(hash: hash, deleted: deleted)
        }
    }

    /// The revision hash of `incoming` as a child of `parent` with these attachments: CouchDB's `new_revid`
    /// (``RevisionHash``), attachments in the new revision's order.
    static func mint(_ incoming: IncomingDocument, parent: RevisionID?, attachments: AttachmentTable) -> String {
        let digests = attachments.orderedNames.compactMap { name in
            attachments.entries[name].map {
                RevisionHash.AttachmentDigest(name: name, contentType: $0.contentType, digest: $0.digest)
            }
        }
        return RevisionHash.mint(body: incoming.body, parent: parent, deleted: incoming.deleted, attachments: digests)
    }

    /// The machine's active cores, read once: Foundation reads them from a file at every call (measured:
    /// 7 ms of every bulk-insert run, and a file read in every single-document write).
    static let cores = ProcessInfo.processInfo.activeProcessorCount

    /// Prepares every write, spreading the work over the machine's cores.
    static func prepareAll(
        _ documents: [IncomingDocument], compression: AttachmentCompression = .couchDB, indexes: IndexSnapshot? = nil
    ) async -> [PreparedWrite] {
        let workers = max(1, min(Self.cores, documents.count / 64))
        guard workers > 1 else { return documents.map { PreparedWrite($0, compression: compression, indexes: indexes) } }
        let chunk = (documents.count + workers - 1) / workers
        return await withTaskGroup(of: (Int, [PreparedWrite]).self) { group in
            for start in stride(from: 0, to: documents.count, by: chunk) {
                let slice = Array(documents[start..<min(start + chunk, documents.count)])
                group.addTask { (start, slice.map { PreparedWrite($0, compression: compression, indexes: indexes) }) }
            }
            var parts: [(Int, [PreparedWrite])] = []
            for await part in group { parts.append(part) }
            return parts.sorted { $0.0 < $1.0 }.flatMap(\.1)
        }
    }
}
