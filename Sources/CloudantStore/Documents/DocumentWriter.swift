internal import CloudantCore
internal import Foundation
internal import GRDB

/// Applies document writes inside one write transaction: decides the parent revision, resolves
/// attachments, mints the revision, merges it into the tree and moves bodies so that the winner's body is
/// always inline in `documents` and every other kept body is in `revision_bodies`.
///
/// Each document is validated completely before anything of it is written, so a failing document in a
/// batch leaves no trace while the others go through (CouchDB's `_bulk_docs`).
struct DocumentWriter {
    let db: Database
    let makeDocumentID: @Sendable () -> String
    let revsLimit: Int
    /// The most leaves a document may have (``StoreOptions/maxLeavesPerDocument``).
    let maxLeaves: Int
    /// Whether the database is partitioned: every document id but a design or local one is then
    /// `partition:rest`.
    let partitioned: Bool
    var sequence: SequenceAllocator
    var indexer: IndexMaintainer
    /// Keeps new attachment content as CouchDB would (replicated writes; interactive ones come prepared).
    let attachmentEncoder: AttachmentEncoder
    /// Design documents' validation functions, run on each revision before it is stored; nil when the store
    /// runs no design functions.
    var validation: WriteValidation?
    /// The partitions found full so far, when the store bounds its partitions (``PartitionLimit``).
    var fullPartitions: FullPartitions?
    /// The design documents with a validation function, read at the transaction's first write.
    private var validationFunctions: [JSONObject]?

    /// - Parameters:
    ///   - now: The store's clock (``StoreOptions/now``), which dates tombstones.
    ///   - preparedAgainst: The catalogue the prepared writes' index entries were computed against.
    init(
        db: Database, makeDocumentID: @escaping @Sendable () -> String, indexCache: IndexCatalogCache? = nil,
        attachmentCompression: AttachmentCompression = .couchDB, now: @escaping @Sendable () -> Date,
        preparedAgainst: IndexSnapshot? = nil, validation: WriteValidation? = nil,
        maxLeaves: Int = StoreOptions.defaultMaxLeavesPerDocument
    ) throws {
        self.maxLeaves = maxLeaves
        self.db = db
        self.validation = validation
        self.makeDocumentID = makeDocumentID
        attachmentEncoder = AttachmentEncoder(compression: attachmentCompression)
        let settings = try WriterSettings(db: db)
        revsLimit = settings.revsLimit
        partitioned = settings.partitioned
        sequence = SequenceAllocator(latest: settings.latestSequence)
        indexer = try IndexMaintainer(
            db: db, cache: indexCache, expiryField: settings.expiryField, now: now, preparedAgainst: preparedAgainst)
    }

    /// Ends the writer's work in the transaction. (Sequences need no bookkeeping; see `SequenceAllocator`.)
    func finish() throws {}

    // MARK: Interactive writes (new_edits=true)

    /// Writes a prepared interactive write as an edit of the revision it names.
    mutating func writeInteractive(_ prepared: PreparedWrite) throws -> WriteResult {
        let incoming = prepared.incoming
        let id = incoming.id ?? makeDocumentID()
        try checkDesignDocument(incoming, id: id)
        if partitioned { try DocumentPartition.validateDocumentID(id) }
        if partitioned, fullPartitions != nil {
            try fullPartitions?.check(
                id: id, newSize: { JSONValue.object(incoming.body).jsonBytes().count },
                oldSize: {
                    try Int.fetchOne(
                        db, sql: "SELECT \(BodySQLFunction.lengthName)(\(StoreSchema.Documents.body)) FROM \(StoreSchema.Documents.table) WHERE \(StoreSchema.Documents.id) = ?",
                        arguments: [id]) ?? 0
                }, in: db)
        }
        // The fast path inserts before it could validate; when a design document has a validation function the
        // general path runs (which also reports a conflict before validating, as CouchDB does). A store that
        // can run design functions but has none to run keeps the fast path.
        let functions = try loadedValidationFunctions()
        let validating = !functions.isEmpty
        if !validating, incoming.rev == nil, let hash = prepared.speculativeHash,
            let result = try insertIfNew(prepared, id: id, hash: hash)
        {
            return result
        }
        let existing = try DocumentRecord.fetch(id: id, in: db)
        var tree = existing?.tree ?? RevisionTree()
        let parent = try tree.parentForInteractiveWrite(named: incoming.rev, deleting: incoming.deleted, documentID: id)
        let generation = (parent?.generation ?? 0) + 1
        let parentAttachments = try parent.map { try attachments(of: $0, in: existing) } ?? AttachmentTable()
        let (table, blobs) = try resolveAttachments(
            incoming.attachments ?? [:], order: incoming.attachmentOrder, encoded: try prepared.encodedAttachments.get(),
            against: parentAttachments,
            generation: generation, interactive: true, documentID: id)
        if validating, let validation, !DocumentID.isDesign(id) {
            var revisions: [RevisionID] = []
            if let rev = incoming.rev { revisions = incoming.revisions ?? [rev] }
            let newDocument = Self.validationDocument(
                id: id, body: incoming.body, revisions: revisions, deleted: incoming.deleted, attachments: table)
            var oldDocument: JSONObject?
            if incoming.rev != nil, let parent { oldDocument = try revisionForValidation(parent, of: existing) }
            try validation.check(newDocument: newDocument, oldDocument: oldDocument, functions: functions, in: db)
        }

        let hash =
            parent == incoming.rev ? prepared.speculativeHash ?? PreparedWrite.mint(incoming, parent: parent, attachments: table)
            : PreparedWrite.mint(incoming, parent: parent, attachments: table)
        let rev = RevisionID(generation: generation, hash: hash)
        let stemmed = try tree.addChild(rev, of: parent, deleted: incoming.deleted, revsLimit: revsLimit, documentID: id)

        for (digest, content) in blobs { try AttachmentStorage.save(digest: digest, content: content, in: db) }
        try persist(
            id: id, existing: existing, tree: tree, newRev: rev, body: prepared.body, parsedBody: incoming.body,
            kind: prepared.kind, attachments: table, forgotten: stemmed, indexEntries: prepared.indexEntries)
        return WriteResult(id: id, rev: rev.description)
    }

    /// The common case of a bulk load: a document without `_rev` whose id is free becomes one INSERT with
    /// no lookup. Returns nil (writing nothing) when the id is taken, for the general path to decide.
    private mutating func insertIfNew(_ prepared: PreparedWrite, id: String, hash: String) throws -> WriteResult? {
        let incoming = prepared.incoming
        let (table, blobs) = try resolveAttachments(
            incoming.attachments ?? [:], order: incoming.attachmentOrder, encoded: try prepared.encodedAttachments.get(),
            against: AttachmentTable(),
            generation: 1, interactive: true, documentID: id)
        let first =
            prepared.firstRevision.flatMap { $0.hash == hash ? $0 : nil }
            ?? PreparedWrite.FirstRevision(hash: hash, deleted: incoming.deleted)
        let inserted = try DocumentRecord.insertIfAbsent(
            id: id, encodedTree: first.encodedTree, deleted: incoming.deleted,
            seq: sequence.current + 1, kind: prepared.kind, body: prepared.body,
            attachments: table.isEmpty ? nil : table.storageJSON.jsonBytes(), in: db)
        guard inserted else { return nil }
        _ = sequence.next()
        try indexer.documentChanged(
            rowID: db.lastInsertedRowID, id: id, body: incoming.deleted ? nil : incoming.body, previousBody: nil, newRow: true,
            prepared: prepared.indexEntries, in: db)
        for (digest, content) in blobs { try AttachmentStorage.save(digest: digest, content: content, in: db) }
        return WriteResult(id: id, rev: first.rev)
    }

    // MARK: Validation

    /// A revision as validation functions receive it: `_id`, `_rev` and `_revisions` (the revision the write
    /// names and its history), the body, `_deleted`, and the attachments as stubs.
    static func validationDocument(
        id: String, body: JSONObject, revisions: [RevisionID], deleted: Bool, attachments: AttachmentTable
    ) -> JSONObject {
        var leading: [(key: String, value: JSONValue)] = [("_id", .string(id))]
        if let newest = revisions.first { leading.append(("_rev", .string(newest.description))) }
        var document = body.prepending(leading)
        if deleted { document["_deleted"] = true }
        if let newest = revisions.first {
            document["_revisions"] = ["start": .number(JSONNumber(newest.generation)), "ids": .array(revisions.map { .string($0.hash) })]
        }
        if !attachments.isEmpty {
            var stubs = JSONObject()
            for name in attachments.sortedNames { if let info = attachments.entries[name] { stubs[name] = info.stub() } }
            document["_attachments"] = .object(stubs)
        }
        return document
    }

    /// A stored revision as validation functions receive the one a write replaces: with `_revisions`, at most
    /// 20 of them (CouchDB's `query_server_config` `revs_limit`); nil when its body is gone.
    func revisionForValidation(_ rev: RevisionID, of record: DocumentRecord?) throws -> JSONObject? {
        guard let record else { return nil }
        var document = try DocumentAssembler(db: db, record: record).document(rev: rev, options: ReadOptions(revs: true))
        if case .object(var revisions)? = document?["_revisions"], case .array(let ids)? = revisions["ids"], ids.count > 20 {
            revisions["ids"] = .array(Array(ids.prefix(20)))
            document?["_revisions"] = .object(revisions)
        }
        return document
    }

    // MARK: Shared steps

    /// Refuses a design document CouchDB would refuse (`invalid_design_doc`, `compilation_error`); deletions
    /// are always fine.
    func checkDesignDocument(_ incoming: IncomingDocument, id: String) throws {
        guard DocumentID.isDesign(id), !incoming.deleted else { return }
        try DesignDocumentRules.validate(incoming.body, documentID: id)
        if !partitioned, incoming.body["options"]?["partitioned"] == .bool(true) {
            throw CloudantError(
                .invalidDesignDocument, "partitioned option cannot be true in a non-partitioned database.",
                context: .init(documentID: id))
        }
        try Self.compileViews(incoming.body, id: id, runtime: validation?.runtime)
    }

    /// Checks a design document's views as CouchDB's `couch_mrview:validate` does when one is saved, view by view:
    /// the map function compiles, then each reduce is a built-in CouchDB has or compiles. Functions are compiled
    /// when the store runs the language; built-in names are checked in the languages CouchDB runs; a design
    /// document in any other language is accepted unchecked.
    static func compileViews(_ body: JSONObject, id: String, runtime: (any DesignFunctionRuntime)?) throws {
        let definition = ViewIndexDefinition(designDocument: body.prepending([("_id", .string(id))]))
        guard definition.hasViews, DesignDocumentRules.languagesCouchDBRuns.contains(definition.language) else { return }
        let compiler = runtime.flatMap { $0.languages.contains(definition.language) ? $0 : nil }
        func compile(_ source: String, kind: String, view: String) throws {
            guard let compiler else { return }
            do {
                try compiler.compile(source)
            } catch let failure as CloudantError where failure.designFunctionError?.name == "compilation_error" {
                let error = failure.designFunctionError ?? .compilation(failure.message)
                throw CloudantError(
                    .compilationError, "Compilation of the \(kind) function in the '\(view)' view failed: \(error.reason)",
                    context: .init(documentID: id, field: "views.\(view)"))
            }
        }
        for view in definition.views {
            try compile(view.map, kind: "map", view: view.mapNames.first ?? view.reduces.first?.name ?? "null")
            for reduce in view.reduces {
                if reduce.source.hasPrefix("_") {
                    try DesignDocumentRules.checkBuiltInReduce(reduce.source, documentID: id)
                } else {
                    try compile(reduce.source, kind: "reduce", view: reduce.name)
                }
            }
        }
    }

    /// The attachment table of a stored revision.
    func attachments(of rev: RevisionID, in record: DocumentRecord?) throws -> AttachmentTable {
        guard let record, let rowID = record.rowID else { return AttachmentTable() }
        let bytes: [UInt8]?
        if rev == record.winnerRev {
            bytes = record.attachments
        } else {
            bytes = try RevisionBody.fetch(documentRowID: rowID, rev: rev, in: db)?.attachments
        }
        guard let bytes else { return AttachmentTable() }
        return try AttachmentTable(storageJSON: JSONValue(parsing: bytes))
    }

    /// Turns the written `_attachments` into the new revision's table and the blobs to store.
    ///
    /// A stub keeps the parent's attachment of that name; like CouchDB's `merge_stubs`, it is matched by name
    /// and (when given) revpos, never by digest. New content is kept as CouchDB keeps it (compressible types
    /// gzip-encoded, the digest of the stored bytes; see ``AttachmentEncoder``): `encoded` holds what an
    /// interactive write prepared, and a replicated write encodes here. New data gets `revpos` = the new
    /// generation in an interactive edit (CouchDB's `set_new_att_revpos`); a replicated revision keeps the
    /// revpos its peer sent.
    func resolveAttachments(
        _ incoming: [String: IncomingAttachment], order: [String], encoded: [String: PreparedWrite.EncodedAttachment]?,
        against parent: AttachmentTable, generation: Int, interactive: Bool, documentID: String
    ) throws -> (AttachmentTable, [(String, AttachmentStorage.Content)]) {
        var table = AttachmentTable(order: order)
        var blobs: [(String, AttachmentStorage.Content)] = []
        for (name, attachment) in incoming {
            switch attachment {
            case .stub(_, let revpos):
                guard let kept = parent.entries[name], revpos == nil || revpos == kept.revpos else {
                    throw CloudantError(
                        .missingStub, "Invalid attachment stub in \(documentID) for \(name): the parent revision "
                            + "has no such attachment. Send its data instead of a stub.",
                        context: .init(documentID: documentID, field: "_attachments.\(name)"))
                }
                table.entries[name] = kept
            case .data(let data):
                var info: AttachmentInfo
                let content: AttachmentStorage.Content
                if let prepared = encoded?[name] {
                    (info, content) = (prepared.info, prepared.content)
                } else {
                    let (encodedInfo, bytes) = try attachmentEncoder.encode(
                        data, name: name, documentID: documentID, generation: generation, interactive: interactive)
                    (info, content) = (encodedInfo, .bytes(bytes))
                }
                if interactive { info.revpos = generation }
                table.entries[name] = info
                blobs.append((info.digest, content))
            case .stored(let info):
                // The content is this store's already: the revision names it, and keeps its revpos.
                guard try AttachmentStorage.exists(info.digest, in: db) else {
                    throw CloudantError(
                        .missingStub, "The store holds no content of \(info.digest) for attachment \(name) of \(documentID).",
                        context: .init(documentID: documentID, field: "_attachments.\(name)"))
                }
                table.entries[name] = info
            case .staged(let staged):
                var info = staged.info
                if interactive { info.revpos = generation }
                table.entries[name] = info
                blobs.append((info.digest, .staged(path: staged.path, length: info.encodedLength)))
            }
        }
        return (table, blobs)
    }

    /// A new revision's body, held until its document's tree is stored.
    struct NewRevision {
        var body: [UInt8]
        var parsed: JSONObject
        var kind: String?
        var attachments: AttachmentTable
        var blobs: [(String, AttachmentStorage.Content)] = []

        /// As `revision_bodies` and the `documents` row keep it.
        var stored: RevisionBody {
            RevisionBody(body: body, attachments: attachments.isEmpty ? nil : attachments.storageJSON.jsonBytes())
        }
    }

    /// The validation functions this transaction's writes go through: none when the store runs no design
    /// functions, else those of the design documents as the transaction's first write found them. As in
    /// CouchDB, whose database handle loads them once (`couch_db:validate_doc_update`), a design document
    /// written in a batch does not validate the rest of that batch; and a lookup per document was a tenth of a
    /// bulk load's writing.
    mutating func loadedValidationFunctions() throws -> [JSONObject] {
        guard let validation else { return [] }
        if let validationFunctions { return validationFunctions }
        let found = try validation.functions(in: db)
        validationFunctions = found
        return found
    }

    /// Stores the new tree and the new revision's body, keeping the winner's body inline, and re-indexes
    /// the document when its winner changed.
    ///
    /// - Parameters:
    ///   - forgotten: The revisions adding `newRev` stemmed from the tree (what `addChild` returned): their
    ///     kept bodies are dropped.
    ///   - indexEntries: `parsedBody`'s index entries, prepared before the transaction; used when the new
    ///     revision wins.
    mutating func persist(
        id: String, existing: DocumentRecord?, tree: RevisionTree, newRev: RevisionID, body: [UInt8],
        parsedBody: JSONObject, kind: String?, attachments: AttachmentTable, forgotten: [RevisionID],
        indexEntries: [[[UInt8]]?]? = nil
    ) throws {
        try persist(
            id: id, existing: existing, tree: tree,
            revisions: [newRev: NewRevision(body: body, parsed: parsedBody, kind: kind, attachments: attachments)],
            forgotten: forgotten, indexEntries: indexEntries.map { (newRev, $0) })
    }

    /// Stores a tree and the bodies of its new revisions (any number: an interactive edit has one, a replicated
    /// batch one per merged revision), keeping the winner's body inline and every other kept body in
    /// `revision_bodies`; drops the bodies of `forgotten` revisions; gives the document a new update sequence;
    /// and re-indexes it when its winner changed.
    ///
    /// - Parameter indexEntries: a new revision's index entries, prepared before the transaction; used when
    ///   that revision wins.
    mutating func persist(
        id: String, existing: DocumentRecord?, tree: RevisionTree, revisions: [RevisionID: NewRevision],
        forgotten: [RevisionID], indexEntries: (rev: RevisionID, entries: [[[UInt8]]?])? = nil
    ) throws {
        guard let winner = tree.winner else { return }
        var record =
            existing
            ?? DocumentRecord(
                rowID: nil, id: id, tree: tree, winnerRev: winner, deleted: false, seq: 0, kind: nil, body: nil,
                attachments: nil)
        var bodiesToKeep: [(RevisionID, RevisionBody)] = []
        if existing == nil || winner != record.winnerRev {
            // The old winner (if still in the tree and kept) moves to revision_bodies.
            if existing != nil, tree.contains(record.winnerRev), let oldBody = record.body {
                bodiesToKeep.append((record.winnerRev, RevisionBody(body: oldBody, attachments: record.attachments)))
            }
            if let new = revisions[winner] {
                let body = new.stored
                record.body = body.body
                record.attachments = body.attachments
                record.kind = new.kind
            } else {
                let promoted = try record.rowID.flatMap { try RevisionBody.fetch(documentRowID: $0, rev: winner, in: db) }
                if let rowID = record.rowID { try RevisionBody.delete(documentRowID: rowID, revs: [winner], in: db) }
                record.body = promoted?.body
                record.attachments = promoted?.attachments
                record.kind = promoted.flatMap { Self.kind(of: $0.body) }
            }
        }
        // Every new revision but an inline winner goes to revision_bodies (a winner that did not change is never
        // new: a revision already in the tree is not stored again).
        for (rev, new) in revisions where rev != winner {
            bodiesToKeep.append((rev, new.stored))
        }
        let winnerChanged = existing == nil || winner != existing?.winnerRev || tree.isDeleted != existing?.deleted
        record.tree = tree
        record.winnerRev = winner
        record.deleted = tree.isDeleted
        record.seq = sequence.next()
        try record.save(in: db)
        guard let rowID = record.rowID else { return }
        if winnerChanged {
            let winnerBody = record.deleted ? nil : try revisions[winner]?.parsed ?? IndexMaintainer.parse(record.body)
            try indexer.documentChanged(
                rowID: rowID, id: id, body: winnerBody,
                previousBody: existing.flatMap { $0.deleted ? nil : try IndexMaintainer.parse($0.body) }, newRow: existing == nil,
                prepared: indexEntries.flatMap { $0.rev == winner && !record.deleted ? $0.entries : nil }, in: db)
        } else if indexer.readsMetadata {
            try indexer.metadataChanged(rowID: rowID, id: id, in: db)
        }
        for (rev, body) in bodiesToKeep where tree.contains(rev) {
            try body.save(documentRowID: rowID, rev: rev, kind: record.kind, in: db)
        }
        if !forgotten.isEmpty { try RevisionBody.delete(documentRowID: rowID, revs: forgotten, in: db) }
    }

    /// The entity kind a stored body declares (its `entityType`, or `CDTISEntityName`), for the kind index.
    static func kind(of body: [UInt8]) -> String? {
        guard case .object(let object)? = try? JSONValue(parsing: body) else { return nil }
        return EntityDocumentFormat.kindName(in: object)
    }
}
