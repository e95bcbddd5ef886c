public import CloudantCore

/// A document an import knows to be new, ready for ``DocumentStore/insertNew(_:comparingExisting:)``: its first revision is
/// minted and its body serialised when it is created, on the caller's thread, so the write transaction
/// only inserts rows.
///
/// ```swift
/// let document = try NewDocument(id: "sample-1", body: ["entityType": "HKQuantitySample", "value": 71])
/// document.rev   // "1-…", the same revision `put` would mint for this body
/// ```
public struct NewDocument: Sendable {
    /// The document id.
    public let id: String
    /// The body, without `_` members.
    public let body: JSONObject
    /// The first revision, `1-<hash>`: what an interactive write of the body with its members sorted by name gets.
    public let revision: RevisionID
    /// The body's JSON bytes, as stored: members sorted by name, numbers as given.
    let bytes: [UInt8]
    /// The entity kind the body declares (`entityType`, or `CDTISEntityName`).
    let kind: String?

    /// Prepares a new document.
    /// - Throws: `CloudantError` `.invalidInput` when the id is not a plain document id (empty, or a
    ///   reserved `_` id: design and local documents take the general write path), or when the body has
    ///   a member whose name starts with `_`.
    public init(id: String, body: JSONObject) throws {
        try DocumentID.validate(id)
        guard !id.hasPrefix("_") else {
            throw CloudantError(
                .invalidInput, "Design and local documents cannot be inserted as new documents; write them with put.",
                context: .init(documentID: id, field: "_id"))
        }
        if let reserved = body.keys.first(where: { $0.hasPrefix("_") }) {
            throw CloudantError(
                .invalidInput, "A new document's body must not carry `_` members; pass the id separately.",
                context: .init(documentID: id, field: reserved))
        }
        self.id = id
        self.body = body
        // Stored sorted (imports compare stored bodies byte for byte), so minted over the sorted body: the
        // revision CouchDB gives the body this store answers, and the same for any order the members came in.
        bytes = JSONValue.object(body).jsonBytes(sortedKeys: true)
        revision = RevisionID(generation: 1, hash: RevisionHash.mintSorted(body: body, jsonByteCount: bytes.count))
        kind = EntityDocumentFormat.kindName(in: body)
    }

    /// The first revision as text (`1-…`).
    public var rev: String { revision.description }

    /// The size of the stored body (its JSON text), in bytes: what a caller batching documents by memory
    /// can count.
    public var byteCount: Int { bytes.count }
}

/// What ``DocumentStore/insertNew(_:comparingExisting:)`` did with a batch.
public struct NewDocumentsOutcome: Sendable, Hashable {
    /// Documents inserted.
    public var written: Int
    /// Ids that were already in the store (live or deleted) and were left as they were, in batch order.
    public var alreadyStored: [String]
    /// When comparing: the already-stored live documents whose winning body differs from the one offered, in
    /// batch order (a subset of ``alreadyStored``).
    public var differing: [StoredDocumentState]

    /// Creates an outcome.
    public init(written: Int = 0, alreadyStored: [String] = [], differing: [StoredDocumentState] = []) {
        self.written = written
        self.alreadyStored = alreadyStored
        self.differing = differing
    }
}

/// A stored document's winner, as ``DocumentStore/insertNew(_:comparingExisting:)`` found it: enough to update
/// it (its revision) and to tell when it was written (its update sequence).
public struct StoredDocumentState: Sendable, Hashable {
    /// The document id.
    public var id: String
    /// The winning revision (`3-…`), the one an update names as its parent.
    public var rev: String
    /// The update sequence of its last change: above a sequence read earlier means it changed since.
    public var sequence: Int64

    /// Creates a state.
    public init(id: String, rev: String, sequence: Int64) {
        self.id = id
        self.rev = rev
        self.sequence = sequence
    }
}
