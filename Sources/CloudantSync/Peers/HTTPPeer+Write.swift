public import CloudantCore
internal import Foundation

/// Writing revisions to a CouchDB-compatible target.
extension HTTPPeer {
    public func write(_ documents: [JSONObject]) async throws -> [WriteFailure] {
        let (plain, multipart) = MultipartUpload.split(documents)
        var failures: [WriteFailure] = []
        for document in multipart {
            if let failure = try await MultipartUpload.put(document, with: client, spoolingIn: spoolDirectory) { failures.append(failure) }
        }
        return try await bulkDocs(plain) + failures
    }

    /// `_bulk_docs` with `new_edits: false`, halving a batch the server finds too large.
    private func bulkDocs(_ documents: [JSONObject]) async throws -> [WriteFailure] {
        guard !documents.isEmpty else { return [] }
        do {
            let response = try await client.send(
                "POST", "_bulk_docs", body: ["docs": .array(documents.map(JSONValue.object)), "new_edits": false])
            // CouchDB answers `new_edits: false` with the rows that failed (an empty array when none did).
            guard let rows = response.body?.arrayValue else { throw Self.unexpected(response, "a _bulk_docs answer that is not an array") }
            return rows.compactMap { entry in
                guard let error = entry["error"]?.stringValue else { return nil }
                return WriteFailure(
                    id: entry["id"]?.stringValue, rev: entry["rev"]?.stringValue, error: error, reason: entry["reason"]?.stringValue ?? "")
            }
        } catch let refusal as CloudantError where refusal.code == .peerRefused && refusal.context.status == 413 {
            let reason = refusal.context.peerReason ?? refusal.message
            // Too large: halve the batch; a single document too large is a write failure.
            guard documents.count > 1 else {
                return [
                    WriteFailure(id: documents[0]["_id"]?.stringValue, rev: documents[0]["_rev"]?.stringValue, error: "too_large", reason: reason)
                ]
            }
            let middle = documents.count / 2
            return try await bulkDocs(Array(documents[..<middle])) + bulkDocs(Array(documents[middle...]))
        }
    }
}
