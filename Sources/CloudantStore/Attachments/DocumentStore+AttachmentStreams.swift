public import CloudantCore
internal import Foundation
internal import GRDB

#if canImport(Glibc)
    internal import Glibc
#endif

extension DocumentStore {
    /// Adds or replaces one attachment with content that arrives in pieces (an upload, a file read in
    /// chunks), in bounded memory whatever its size: the pieces are compressed (for types CouchDB keeps
    /// compressed) and digested as they stream into a staging file beside the store, and the new revision
    /// moves that file into place. Attachments of 128 KB or more are kept as files in
    /// `<store file>-attachments/`; smaller ones in the database.
    ///
    /// ```swift
    /// let handle = try FileHandle(forReadingFrom: scanURL)
    /// let result = try await store.putAttachment(
    ///     "scan.dcm", documentID: "visit-12", rev: visit.rev, contentType: "application/dicom",
    ///     content: handle.bytes.chunked(256 * 1024))
    /// ```
    /// - Parameters:
    ///   - name: The attachment's name in the document.
    ///   - documentID: The document to attach it to (created when `rev` is nil and it does not exist).
    ///   - rev: The revision to edit (nil for a new document, as CouchDB's attachment `PUT`).
    ///   - contentType: The MIME type stored with it and sent back on reads.
    ///   - encoding: `.gzip` when the pieces are a gzip member the store should keep as it is.
    ///   - length: The length of the content as written, when known; checked.
    ///   - digest: A digest the sender computed (of the stored form or of the content); checked.
    ///   - maxLength: The most content bytes accepted.
    ///   - content: The attachment's bytes, in pieces of any size.
    /// - Throws: `CloudantError` `.conflict` for a revision that is not the leaf being edited,
    ///   `.attachmentDigestMismatch`, `.attachmentTooLarge`, `.invalidInput` (a bad name or id, damaged
    ///   gzip, a wrong length), or the sequence's error. Nothing is stored when it throws.
    public func putAttachment<Chunks: AsyncSequence & Sendable>(
        _ name: String, documentID: String, rev: String? = nil, contentType: String,
        encoding: AttachmentEncoding = .identity, length: Int? = nil, digest: String? = nil, maxLength: Int = .max,
        content: Chunks
    ) async throws -> WriteResult where Chunks.Element == [UInt8] {
        try DocumentID.validate(documentID)
        try IncomingAttachment.validate(name: name, documentID: documentID)
        var document: JSONObject = ["_id": .string(documentID)]
        if let rev {
            do {
                document = try await self.document(id: documentID, options: ReadOptions(rev: rev))
            } catch let error as CloudantError where error.code == .notFound {
                throw CloudantError(.conflict, "Document update conflict.", context: .init(documentID: documentID, revision: rev))
            }
        }
        let staged = try await stageAttachment(
            name, documentID: documentID, contentType: contentType, encoding: encoding, length: length, digest: digest,
            maxLength: maxLength, content: content)
        do {
            var incoming = try IncomingDocument(document)
            incoming.setAttachment(.staged(staged), named: name)
            return try await put(incoming)
        } catch {
            discardStagedAttachment(staged)
            throw error
        }
    }

    /// Streams attachment content into a staging file beside the store without writing a revision yet,
    /// checked as ``putAttachment(_:documentID:rev:contentType:encoding:length:digest:maxLength:content:)``
    /// checks it. Write it with `IncomingAttachment.staged(_:)` in a document given to ``put(_:)-(IncomingDocument)``
    /// or ``bulkDocs(parsed:newEdits:allOrNothing:)`` (a replicator sets `revpos` to its sender's first);
    /// a staged file no write takes is removed when the store next opens, ten minutes later at the soonest,
    /// or at once with ``discardStagedAttachment(_:)``.
    /// - Parameters: as for `putAttachment`; `name` and `documentID` only name the attachment in errors.
    public func stageAttachment<Chunks: AsyncSequence & Sendable>(
        _ name: String, documentID: String, contentType: String, encoding: AttachmentEncoding = .identity,
        length: Int? = nil, digest: String? = nil, maxLength: Int = .max, content: Chunks
    ) async throws -> StagedAttachment where Chunks.Element == [UInt8] {
        let stager = AttachmentStager(files: attachmentFiles, compression: options.attachmentCompression)
        let declared = AttachmentStager.Declared(
            contentType: contentType, encoding: encoding, length: length, digest: digest, maxLength: maxLength)
        return try await stager.stage(content, declared: declared, name: name, documentID: documentID)
    }

    /// Removes a staged attachment no write took (a write that took it already moved its file).
    public func discardStagedAttachment(_ staged: StagedAttachment) {
        guard staged.path.hasPrefix(attachmentFiles.stagingDirectory + "/") else { return }
        unlink(staged.path)
    }

    /// One attachment of the winning revision (or of `rev`), to be read in pieces with
    /// ``AttachmentContent/contentBytes(pieceSize:)`` or ``AttachmentContent/storedBytes(in:pieceSize:)``
    /// instead of whole (``attachment(documentID:name:rev:)``).
    /// - Throws: `CloudantError` `.notFound` when the document, revision or attachment does not exist.
    public func attachmentContent(documentID: String, name: String, rev: String? = nil) async throws -> AttachmentContent {
        try DocumentID.validate(documentID)
        let requested = try rev.map { try RevisionID(parsing: $0) }
        return try await read(.storeUnreadable) { db in
            guard let record = try DocumentRecord.fetch(id: documentID, in: db) else {
                throw CloudantError(.notFound, "missing", context: .init(documentID: documentID, revision: rev))
            }
            // A deleted document's attachments are gone: CouchDB's reason names why.
            guard let rev = requested ?? (record.deleted ? nil : record.winnerRev) else {
                throw CloudantError(.notFound, "deleted", context: .init(documentID: documentID, revision: rev))
            }
            // A revision the document does not have is CouchDB's plain `missing` (`couch_doc_open/4`).
            guard let stored = try DocumentAssembler(db: db, record: record).stored(rev: rev) else {
                throw CloudantError(.notFound, "missing", context: .init(documentID: documentID, revision: rev.description))
            }
            guard let info = stored.attachments.entries[name], let source = try AttachmentStorage.open(digest: info.digest, in: db)
            else {
                throw CloudantError(
                    .notFound, "Document is missing attachment",
                    context: .init(documentID: documentID, revision: rev.description, field: name))
            }
            return AttachmentContent(name: name, info: info, source: source)
        }
    }

    /// The folder that keeps this store's large attachments as files.
    var attachmentFiles: AttachmentFiles {
        // A store always has a file (DatabasePool needs one), so the folder always exists in name.
        AttachmentFiles(databasePath: fileURL.path) ?? AttachmentFiles(directory: fileURL.path + "-attachments", cipher: nil)
    }
}
