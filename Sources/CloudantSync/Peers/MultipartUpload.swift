internal import CloudantCore
internal import Foundation

/// How an ``HTTPPeer`` target takes large attachments: each one received is spooled to a temporary file
/// (its member in the document says `"follows_file"`), and the document is then uploaded alone as
/// CouchDB's replicator uploads documents with attachments, `PUT /db/{id}?new_edits=false` with a
/// `multipart/related` body whose parts are the attachment bytes, streamed from disk.
enum MultipartUpload {
    /// The member naming a spooled attachment file.
    static let fileMember = "follows_file"

    /// Spools `attachment` to a file of its own in `directory`; returns its member for the document.
    static func spool(_ attachment: PeerAttachment, in directory: URL) async throws -> JSONValue {
        let path = directory.appendingPathComponent("cloudant-push-" + UUID().uuidString).path
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw CloudantError(.storeUnwritable, "Could not create a file for an attachment to upload in \(directory.path).")
        }
        var size = 0
        do {
            for try await piece in attachment.pieces {
                try handle.write(contentsOf: piece)
                size += piece.count
            }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
        var member = attachment.stubMembers
        if attachment.encoding != .identity { member["encoded_length"] = .number(JSONNumber(size)) }
        member[fileMember] = .string(path)
        return .object(member)
    }

    /// Removes the files spooled for `attachments`: a document that will not be uploaded after all, or whose
    /// write is over.
    static func discardSpooled(in attachments: JSONObject) {
        for (_, member) in attachments.members {
            if let path = member[fileMember]?.stringValue { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    /// Documents without spooled attachments (for `_bulk_docs`) and those with (uploaded one by one).
    static func split(_ documents: [JSONObject]) -> (plain: [JSONObject], multipart: [JSONObject]) {
        var plain: [JSONObject] = []
        var multipart: [JSONObject] = []
        for document in documents {
            let spooled = document["_attachments"]?.objectValue?.members.contains { $0.1[fileMember] != nil } == true
            if spooled { multipart.append(document) } else { plain.append(document) }
        }
        return (plain, multipart)
    }

    /// Uploads one document with its spooled attachments. Returns the failure when the server refuses the
    /// document (as a `_bulk_docs` row would report it); throws for failures of the replication itself
    /// (unreachable, unauthorized, a server error).
    ///
    /// The spooled files stay: a write that failed midway is retried whole, this document included even if
    /// it was stored (`new_edits=false` stores a revision once), and the replicator removes them when the
    /// write is over. The body itself is written to a file in `directory`, removed when the call returns.
    static func put(_ document: JSONObject, with client: CouchHTTPClient, spoolingIn directory: URL) async throws -> WriteFailure? {
        let id = document["_id"]?.stringValue ?? ""
        let rev = document["_rev"]?.stringValue
        var json = document
        var files: [String] = []
        if case .object(var attachments)? = document["_attachments"] {
            for (name, member) in attachments.members {
                guard case .object(var object) = member, let path = object[fileMember]?.stringValue else { continue }
                object[fileMember] = nil
                object["follows"] = true
                attachments[name] = .object(object)
                files.append(path)
            }
            json["_attachments"] = .object(attachments)
        }
        let boundary = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let body = directory.appendingPathComponent("cloudant-push-body-" + UUID().uuidString).path
        defer { try? FileManager.default.removeItem(atPath: body) }
        try writeBody(to: body, json: json, files: files, boundary: boundary)
        do {
            _ = try await client.upload(
                "PUT", CouchHTTPClient.encode(id), query: [("new_edits", "false")],
                contentType: "multipart/related; boundary=\"\(boundary)\"", file: URL(fileURLWithPath: body))
            return nil
        } catch let refusal as CloudantError where refusal.code == .peerRefused {
            let reason = refusal.context.peerReason ?? refusal.message
            switch refusal.context.status ?? 0 {
            case 400, 409, 412, 413, 415: return WriteFailure(id: id, rev: rev, error: refusal.context.peerError ?? "http_error", reason: reason)
            // A validation function or `_security` refused this document: the others go on, as in CouchDB, whose
            // worker counts a document's `unauthorized` (a validation's `{unauthorized: …}`, a design document
            // from a non-admin) as it counts `forbidden`. Bad credentials fail earlier, at the database's `GET`.
            case 401: return WriteFailure(id: id, rev: rev, error: "unauthorized", reason: reason)
            case 403: return WriteFailure(id: id, rev: rev, error: "forbidden", reason: reason)
            default: throw refusal
            }
        }
    }

    /// The `multipart/related` body: the JSON part, then each file as a part, in the JSON's order.
    private static func writeBody(to path: String, json: JSONObject, files: [String], boundary: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let output = FileHandle(forWritingAtPath: path) else {
            throw CloudantError(.storeUnwritable, "Could not create the file of an upload's body at \(path).")
        }
        defer { try? output.close() }
        try output.write(contentsOf: Data("--\(boundary)\r\nContent-Type: application/json\r\n\r\n".utf8))
        try output.write(contentsOf: JSONValue.object(json).jsonBytes())
        for file in files {
            try output.write(contentsOf: Data("\r\n--\(boundary)\r\n\r\n".utf8))
            guard let input = FileHandle(forReadingAtPath: file) else {
                throw CloudantError(.storeUnreadable, "The spooled attachment \(file) is gone.")
            }
            defer { try? input.close() }
            while let data = try input.read(upToCount: 256 * 1024), !data.isEmpty { try output.write(contentsOf: data) }
        }
        try output.write(contentsOf: Data("\r\n--\(boundary)--".utf8))
    }
}
