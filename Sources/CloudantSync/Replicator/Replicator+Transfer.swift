internal import CloudantCore
internal import Foundation

/// Moving a batch: fetching revisions in parallel chunks, and uploading them so that a document the target
/// refuses is named rather than failing the whole batch.
extension Replicator {
    /// Fetches in chunks, several at once; results keep the requests' order.
    func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] {
        // Large attachments move on their own when both peers can (see `SeparateAttachments`).
        let limit =
            source.sendsLargeAttachmentsSeparately && target.receivesLargeAttachmentsSeparately
            ? options.separateAttachmentSize : nil
        let source = self.source
        let fetchPart: @Sendable ([RevisionRequest]) async throws -> [FetchedRevision] = { part in
            if let limit { return try await source.fetch(part, inlineAttachmentLimit: limit) }
            return try await source.fetch(part)
        }
        let chunk = max(1, options.fetchChunk)
        let chunks = stride(from: 0, to: requests.count, by: chunk).map { Array(requests[$0..<min($0 + chunk, requests.count)]) }
        if chunks.count == 1 { return try await options.retry.run { try await fetchPart(chunks[0]) } }
        let (retry, width) = (options.retry, max(1, options.fetchConcurrency))
        return try await withThrowingTaskGroup(of: (Int, [FetchedRevision]).self) { group in
            var results: [[FetchedRevision]] = Array(repeating: [], count: chunks.count)
            var next = 0
            func launch() {
                let index = next
                let part = chunks[index]
                group.addTask { (index, try await retry.run { try await fetchPart(part) }) }
                next += 1
            }
            while next < min(width, chunks.count) { launch() }
            while let (index, part) = try await group.next() {
                results[index] = part
                if next < chunks.count { launch() }
            }
            return results.flatMap { $0 }
        }
    }

    /// Uploads `documents` (their separate attachments first) and returns the revisions the target did not
    /// take.
    ///
    /// A target that refuses a whole batch for what one document holds (CouchDB validates a `_bulk_docs` body
    /// all or nothing: a `400`; a `413` or `415`; a store that finds a document malformed) has the batch
    /// halved until each refused document is alone, and is then reported as that document's failure, as
    /// CouchDB's replicator does for a single document it cannot write (`couch_replicator_worker`
    /// `handle_flush_docs_result`, `handle_doc_write_error`). Failures of the replication itself (unreachable,
    /// credentials, 5xx after retries) are thrown.
    func upload(_ documents: [JSONObject]) async throws -> [WriteFailure] {
        guard !documents.isEmpty else { return [] }
        let (source, target, retry) = (self.source, self.target, options.retry)
        do {
            let (complete, unmovable) = try await SeparateAttachments.transfer(documents, from: source, to: target, retry: retry)
            // The files spooled for `complete` outlive each attempt, so that a retried write sends them again,
            // and go once the write is over, whatever its outcome.
            defer {
                for document in complete {
                    if let attachments = document["_attachments"]?.objectValue { MultipartUpload.discardSpooled(in: attachments) }
                }
            }
            guard !complete.isEmpty else { return unmovable }
            return unmovable + (try await retry.run { try await target.write(complete) })
        } catch let refusal where Self.refusesDocuments(refusal) {
            guard documents.count > 1 else { return [Self.failure(of: documents[0], refusal)] }
            let middle = documents.count / 2
            return try await upload(Array(documents[..<middle])) + upload(Array(documents[middle...]))
        }
    }

    /// Whether `error` is a target's refusal of the documents sent rather than a failure to reach it.
    static func refusesDocuments(_ error: any Error) -> Bool {
        guard let error = error as? CloudantError else { return false }
        if error.code == .peerRefused { return [400, 413, 415].contains(error.context.status ?? 0) }
        return !error.code.isPeerFailure && [.invalidInput, .tooLarge, .preconditionFailed].contains(error.category)
    }

    /// The failure of `document`, refused alone with `error`.
    static func failure(of document: JSONObject, _ error: any Error) -> WriteFailure {
        let (id, rev) = (document["_id"]?.stringValue, document["_rev"]?.stringValue)
        switch error {
        case let error as CloudantError where error.code == .peerRefused:
            let name = error.context.status == 413 ? "too_large" : error.context.peerError ?? "http_error"
            return WriteFailure(id: id, rev: rev, error: name, reason: error.context.peerReason ?? error.message)
        case let error as CloudantError:
            return WriteFailure(id: id, rev: rev, error: error.code.rawValue, reason: error.message, category: error.category)
        default:
            return WriteFailure(id: id, rev: rev, error: "bad_request", reason: "\(error)")
        }
    }
}
