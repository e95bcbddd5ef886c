/// A document as a client wrote it, split into CouchDB's metadata and the body.
///
/// ```swift
/// let incoming = try IncomingDocument(["_id": "a", "_rev": "1-…", "title": "Walk"])
/// incoming.id        // "a"
/// incoming.body      // ["title": "Walk"]
/// ```
public struct IncomingDocument: Sendable, Hashable {
    /// `_id`, when given.
    public var id: String?
    /// `_rev`, when given.
    public var rev: RevisionID?
    /// `_deleted`.
    public var deleted: Bool
    /// `_revisions`, newest first, when given (used by replicated writes).
    public var revisions: [RevisionID]?
    /// `_attachments` by name, when given.
    public var attachments: [String: IncomingAttachment]?
    /// The names of ``attachments`` in the order they were written: CouchDB keeps attachments in this order
    /// and hashes them in it (``RevisionHash``). ``setAttachment(_:named:)`` keeps it up to date.
    public var attachmentOrder: [String] = []
    /// Every member that is not CouchDB metadata, in written order.
    public var body: JSONObject

    /// Members CouchDB accepts on write and ignores.
    static let ignored: Set<String> = ["_revs_info", "_conflicts", "_deleted_conflicts", "_local_seq"]

    /// Splits a written document.
    /// - Throws: `CloudantError.Code.invalidInput` naming the member: a non-string or illegal `_id`,
    ///   a malformed `_rev` or `_revisions`, a non-boolean `_deleted`, a bad attachment, or an unknown
    ///   `_`-member (CouchDB's "Bad special document member").
    public init(_ object: JSONObject) throws {
        // One pass over the members: the special ones picked out, the rest kept in order as the body (a
        // lookup per special member and an assignment per body member made this quadratic; it was a tenth
        // of a 1,000-document `_bulk_docs` batch's work on the writer's path).
        var rawID: JSONValue?
        var rawRev: JSONValue?
        var rawDeleted: JSONValue?
        var rawRevisions: JSONValue?
        var rawAttachments: JSONValue?
        var bodyMembers: [(key: String, value: JSONValue)] = []
        bodyMembers.reserveCapacity(object.count)
        var unknownSpecial: String?
        for (key, value) in object.members {
            // CouchDB's test is on bytes: a name whose first byte is `_` is special.
            if key.utf8.first == UInt8(ascii: "_") {
                switch key {
                case "_id": rawID = value
                case "_rev": rawRev = value
                case "_deleted": rawDeleted = value
                case "_revisions": rawRevisions = value
                case "_attachments": rawAttachments = value
                case _ where Self.ignored.contains(key): break
                case "_access": bodyMembers.append((key, value))
                case _ where key.hasPrefix("_replication_"): bodyMembers.append((key, value))
                default: unknownSpecial = unknownSpecial ?? key
                }
                continue
            }
            bodyMembers.append((key, value))
        }

        var id: String?
        if let rawID {
            guard case .string(let string) = rawID else {
                throw CloudantError(.invalidInput, "Document id must be a string.", context: .init(field: "_id"))
            }
            try DocumentID.validate(string)
            id = string
        }
        self.id = id

        func invalid(_ field: String, _ message: String) -> CloudantError {
            CloudantError(.invalidInput, message, context: .init(documentID: id, field: field))
        }
        // A metadata member of the wrong JSON type is not that member at all to CouchDB: it is an unknown
        // special member, refused with `doc_validation`.
        func badSpecialMember(_ field: String) -> CloudantError {
            CloudantError(
                .documentValidation, "Bad special document member: \(field)", context: .init(documentID: id, field: field))
        }

        if let rawRev {
            guard case .string(let string) = rawRev else { throw invalid("_rev", "_rev must be a string like \"1-abc…\".") }
            rev = try RevisionID(parsing: string)
        }
        switch rawDeleted {
        case nil: deleted = false
        case .bool(let flag)?: deleted = flag
        default: throw badSpecialMember("_deleted")
        }
        if let rawRevisions, let id, DocumentID.isLocal(id) {
            // A local document has no history: CouchDB's replicator writes its checkpoints back with the
            // `_revisions` it read (`{"start": 0, "ids": ["N"]}`), which name only its `0-N` revision.
            guard case .object = rawRevisions else { throw badSpecialMember("_revisions") }
            if rev == nil, let start = rawRevisions["start"]?.numberValue?.int64Value, start == 0,
                let newest = rawRevisions["ids"]?.arrayValue?.first?.stringValue
            {
                rev = try RevisionID(parsing: "0-\(newest)")
            }
        } else if let rawRevisions {
            guard case .object = rawRevisions else { throw badSpecialMember("_revisions") }
            revisions = try Self.parseRevisions(rawRevisions, documentID: id)
            // Without `_rev`, an edit's parent is the newest revision of `_revisions`, as in CouchDB.
            if rev == nil { rev = revisions?.first }
        }
        if let rawAttachments {
            guard case .object(let members) = rawAttachments else { throw badSpecialMember("_attachments") }
            var parsed: [String: IncomingAttachment] = [:]
            var order: [String] = []
            // `couch_doc:transfer_fields/3` reads only the members that are objects: any other is dropped
            // unread (its name unchecked), as a list comprehension's pattern drops what it does not match.
            for (name, value) in members.members where value.objectValue != nil {
                parsed[name] = try IncomingAttachment(name: name, json: value, documentID: id)
                order.append(name)
            }
            attachments = parsed
            attachmentOrder = order
        }

        if let unknownSpecial {
            throw CloudantError(
                .documentValidation, "Bad special document member: \(unknownSpecial)",
                context: .init(documentID: id, field: unknownSpecial))
        }
        // The members of a `JSONObject` are unique already.
        body = JSONObject(uniqueMembers: bodyMembers)
    }

    /// Adds or replaces the attachment `name` as CouchDB's standalone attachment upload does: the new one
    /// first, the others after it in their order (`chttpd_db`'s `NewAtt ++ [A || A <- Atts, …]`).
    public mutating func setAttachment(_ attachment: IncomingAttachment, named name: String) {
        let others = orderedAttachmentNames.filter { $0 != name }
        var table = attachments ?? [:]
        table[name] = attachment
        attachments = table
        attachmentOrder = [name] + others
    }

    /// The names of ``attachments`` in written order (names set without an order follow in byte order).
    public var orderedAttachmentNames: [String] {
        AttachmentTable(
            (attachments ?? [:]).mapValues { _ in AttachmentInfo(contentType: "", digest: "", length: 0, revpos: 0) },
            order: attachmentOrder
        ).orderedNames
    }

    /// Parses `{"start": N, "ids": [newest … oldest]}` into revisions, newest first.
    static func parseRevisions(_ json: JSONValue, documentID: String?) throws -> [RevisionID] {
        guard let start = json["start"]?.numberValue?.int64Value, start > 0,
            case .array(let ids)? = json["ids"], !ids.isEmpty, Int64(ids.count) <= start
        else {
            throw CloudantError(
                .invalidInput, "_revisions must be {\"start\": N, \"ids\": [newest … oldest]} with N ≥ the number of ids.",
                context: .init(documentID: documentID, field: "_revisions"))
        }
        guard start <= RevisionID.maximumGeneration else {
            throw CloudantError(
                .invalidInput,
                "_revisions.start \(start) is above the largest revision generation allowed, \(RevisionID.maximumGeneration). "
                    + "Replicate this document from a source whose revisions stay within that bound.",
                context: .init(documentID: documentID, field: "_revisions"))
        }
        return try ids.enumerated().map { offset, id in
            guard case .string(let hash) = id else {
                throw CloudantError(
                    .invalidInput, "_revisions ids must be strings.",
                    context: .init(documentID: documentID, field: "_revisions"))
            }
            do {
                return try RevisionID(parsing: "\(Int(start) - offset)-\(hash)")
            } catch {
                throw CloudantError(
                    .documentValidation, "RevId isn't a valid hexadecimal",
                    context: .init(documentID: documentID, field: "_revisions"))
            }
        }
    }
}
