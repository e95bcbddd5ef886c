internal import CloudantCore
internal import GRDB

/// Builds the JSON CouchDB returns for one revision of a stored document: `_id`, `_rev`, `_deleted`, the body,
/// then `_revisions`, `_revs_info`, `_conflicts`, `_deleted_conflicts`, `_local_seq` and `_attachments` as
/// asked, in CouchDB's order.
struct DocumentAssembler {
    let db: Database
    let record: DocumentRecord

    struct StoredRevision {
        var body: JSONObject
        var attachments: AttachmentTable
    }

    /// The stored body and attachments of `rev`, or nil when the revision or its body is gone.
    func stored(rev: RevisionID) throws -> StoredRevision? {
        guard record.tree.node(rev)?.bodyAvailable == true else { return nil }
        let bodyBytes: [UInt8]?
        let attachmentBytes: [UInt8]?
        if rev == record.winnerRev {
            bodyBytes = record.body
            attachmentBytes = record.attachments
        } else if let rowID = record.rowID, let stored = try RevisionBody.fetch(documentRowID: rowID, rev: rev, in: db) {
            bodyBytes = stored.body
            attachmentBytes = stored.attachments
        } else {
            return nil
        }
        guard let bodyBytes, case .object(let body) = try JSONValue(parsing: bodyBytes) else { return nil }
        let attachments = try attachmentBytes.map { try AttachmentTable(storageJSON: JSONValue(parsing: $0)) }
        return StoredRevision(body: body, attachments: attachments ?? AttachmentTable())
    }

    /// The document JSON of `rev`, or nil when its body is not available, its members in `couch_doc:
    /// to_json_obj/2`'s order: `_id`, `_rev`, `_deleted`, the body, `_revisions`, the metadata (`_revs_info`,
    /// `_conflicts`, `_deleted_conflicts`, `_local_seq`), then `_attachments`.
    func document(rev: RevisionID, options: ReadOptions) throws -> JSONObject? {
        guard let stored = try stored(rev: rev) else { return nil }
        let tree = record.tree
        var head: [(String, JSONValue)] = [("_id", .string(record.id)), ("_rev", .string(rev.description))]
        if tree.node(rev)?.deleted == true { head.append(("_deleted", true)) }
        var document = stored.body.prepending(head)
        if options.revs, case .object(var revisions)? = tree.revisionsJSON(for: rev) {
            // CouchDB reads a revision's path cut to the database's current `_revs_limit` (`couch_db:make_doc`):
            // a limit lowered after the writes shows at once, before any write or compaction stems the tree.
            let limit = Int(try StoreInfo.integer(StoreSchema.StoreInfo.revsLimit, in: db))
            if case .array(let ids)? = revisions["ids"], limit > 0, ids.count > limit {
                revisions["ids"] = .array(Array(ids.prefix(limit)))
            }
            document["_revisions"] = .object(revisions)
        }
        if options.revsInfo {
            document["_revs_info"] = .array(tree.revsInfo(for: rev).map(\.json))
        }
        if options.conflicts, rev == record.winnerRev, !tree.conflicts.isEmpty {
            document["_conflicts"] = .array(tree.conflicts.map { .string($0.description) })
        }
        if options.deletedConflicts, rev == record.winnerRev, !tree.deletedConflicts.isEmpty {
            document["_deleted_conflicts"] = .array(tree.deletedConflicts.map { .string($0.description) })
        }
        if options.localSeq { document["_local_seq"] = .number(JSONNumber(record.seq)) }
        if !stored.attachments.isEmpty {
            document["_attachments"] = try attachmentsJSON(stored.attachments, rev: rev, options: options)
        }
        return document
    }

    /// Stubs, or inline data for attachments newer than `atts_since`: the content as
    /// written for JSON (gzip-stored attachments decoded, as CouchDB does), or the stored bytes for
    /// multipart writers (``ReadOptions/attachmentsAsStored``).
    private func attachmentsJSON(_ table: AttachmentTable, rev: RevisionID, options: ReadOptions) throws -> JSONValue {
        let ancestry = Set(record.tree.ancestry(of: rev))
        let since = options.attachmentsSince.compactMap { try? RevisionID(parsing: $0) }
            .filter { ancestry.contains($0) }.map(\.generation).max()
        let showEncoding = options.attachmentEncodingInfo || options.attachmentsAsStored
        var object = JSONObject()
        for name in table.orderedNames {
            guard let info = table.entries[name] else { continue }
            // `atts_since` decides on its own when given, even with `attachments=true` (CouchDB's
            // `apply_open_options`): only content newer than the newest known ancestor is sent.
            let inline = options.attachmentsSince.isEmpty ? options.attachments : info.revpos > (since ?? 0)
            if inline, let limit = options.inlineAttachmentLimit, info.encodedLength >= limit {
                guard case .object(var stub) = info.stub(showEncoding: true) else { continue }
                stub["follows_separately"] = true
                object[name] = .object(stub)
            } else if inline, let stored = try AttachmentStorage.fetch(digest: info.digest, in: db) {
                if options.attachmentsAsStored {
                    object[name] = info.stored(base64: Base64.encode(stored))
                } else {
                    let content = try Self.content(of: stored, info: info, documentID: record.id, name: name)
                    object[name] = info.inline(base64: Base64.encode(content), showEncoding: showEncoding)
                }
            } else {
                object[name] = info.stub(showEncoding: showEncoding)
            }
        }
        return .object(object)
    }

    /// The content as written of an attachment's stored bytes: decoded when it is kept gzip-encoded.
    /// - Throws: `CloudantError` `.invalidInput` when stored gzip bytes no longer decode (a damaged file).
    static func content(of stored: [UInt8], info: AttachmentInfo, documentID: String, name: String) throws -> [UInt8] {
        guard info.encoding == .gzip else { return stored }
        do {
            return try Gzip.decode(stored, limit: info.length)
        } catch {
            throw CloudantError(
                .invalidInput, "The stored bytes of attachment \(name) are damaged (\(error.reason)).",
                context: .init(documentID: documentID, field: "_attachments.\(name)"))
        }
    }
}
