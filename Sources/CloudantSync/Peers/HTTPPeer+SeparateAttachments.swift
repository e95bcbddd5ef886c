public import CloudantCore
internal import CloudantStore
internal import Foundation

extension HTTPPeer {
    /// A CouchDB-compatible server sends any attachment on its own (`GET /db/doc/att?rev=`).
    public var sendsLargeAttachmentsSeparately: Bool { true }

    /// Reads the revisions with attachment stubs first (`attachments=false`); a document whose needed
    /// attachments (newer than what the target holds, as `atts_since` decides) include one stored at least
    /// `inlineAttachmentLimit` long gets them all marked `"follows_separately": true`; documents whose
    /// needed attachments are all small are read again with their data inline, as ``fetch(_:)`` reads them.
    public func fetch(_ requests: [RevisionRequest], inlineAttachmentLimit: Int) async throws -> [FetchedRevision] {
        var fetched = try await fetch(requests, attachments: false)
        let since = Dictionary(requests.map { ($0.id, $0.attachmentsSince) }, uniquingKeysWith: { $0 + $1 })
        var inlineAgain: [RevisionRequest] = []
        var positions: [String: Int] = [:]  // "id rev" → index in `fetched`
        for (index, revision) in fetched.enumerated() {
            guard case .document(var document) = revision, let id = document["_id"]?.stringValue,
                let rev = document["_rev"]?.stringValue, case .object(var attachments)? = document["_attachments"]
            else { continue }
            let known = Self.newestKnownGeneration(of: document, among: since[id] ?? [])
            let needed = attachments.members.filter { ($0.1["revpos"]?.numberValue?.int64Value ?? 0) > known }
            guard !needed.isEmpty else { continue }
            let large = needed.contains { Self.storedLength($0.1) >= inlineAttachmentLimit }
            if large {
                for (name, stub) in needed {
                    guard case .object(var marked) = stub else { continue }
                    marked[SeparateAttachments.marker] = true
                    attachments[name] = .object(marked)
                }
                document["_attachments"] = .object(attachments)
                fetched[index] = .document(document)
            } else {
                inlineAgain.append(RevisionRequest(id: id, rev: rev, attachmentsSince: since[id] ?? []))
                positions[id + " " + rev] = index
            }
        }
        guard !inlineAgain.isEmpty else { return fetched }
        for revision in try await fetch(inlineAgain, attachments: true) {
            guard case .document(let document) = revision, let id = document["_id"]?.stringValue,
                let rev = document["_rev"]?.stringValue, let index = positions[id + " " + rev]
            else { continue }
            fetched[index] = revision
        }
        return fetched
    }

    /// Downloads the attachment to a temporary file, then reads it in pieces: never whole in memory. It
    /// comes as written (decoded), so it carries the stub's digest only when the source keeps it unencoded.
    public func attachment(documentID: String, rev: String, name: String, stub: JSONObject) async throws -> PeerAttachment {
        let path = CouchHTTPClient.encode(documentID) + "/" + CouchHTTPClient.encode(name)
        let file = try await client.download(path, query: [("rev", rev)], accept: "*/*")
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            throw ReplicationError.localFailure(
                url: url, underlying: CloudantError(.fetchFailed, "Could not read the downloaded attachment \(name)."))
        }
        try? FileManager.default.removeItem(at: file)  // The open handle keeps the bytes until it closes.
        let encoded = stub["encoding"]?.stringValue.map { $0 != "identity" } ?? false
        return PeerAttachment(
            contentType: stub["content_type"]?.stringValue ?? "application/octet-stream", encoding: .identity,
            length: Int(stub["length"]?.numberValue?.int64Value ?? 0),
            digest: encoded ? nil : stub["digest"]?.stringValue,
            revpos: Int(stub["revpos"]?.numberValue?.int64Value ?? 1), pieces: AttachmentByteStream(FilePieces(handle: handle)))
    }

    /// The newest generation among `revisions` that is an ancestor of (or is) `document`'s revision, by its
    /// `_revisions`: attachments with a larger `revpos` are what the target lacks (CouchDB's `atts_since`).
    static func newestKnownGeneration(of document: JSONObject, among revisions: [String]) -> Int64 {
        guard let start = document["_revisions"]?["start"]?.numberValue?.int64Value,
            let ids = document["_revisions"]?["ids"]?.arrayValue?.compactMap(\.stringValue)
        else { return 0 }
        let ancestry = Set(ids.enumerated().map { "\(start - Int64($0.offset))-\($0.element)" })
        return revisions.filter(ancestry.contains).compactMap { Int64($0.prefix { $0 != "-" }) }.max() ?? 0
    }

    /// The length of an attachment's stored bytes, by its stub.
    static func storedLength(_ stub: JSONValue) -> Int {
        Int(stub["encoded_length"]?.numberValue?.int64Value ?? stub["length"]?.numberValue?.int64Value ?? 0)
    }
}

extension HTTPPeer {
    /// Takes large attachments separately: spooled to temporary files and uploaded with their document as
    /// `multipart/related` (see `MultipartUpload`), which CouchDB and `cloudant serve` stream to disk.
    public var receivesLargeAttachmentsSeparately: Bool { true }

    public func receive(_ attachment: PeerAttachment, documentID: String, name: String) async throws -> JSONValue {
        try await MultipartUpload.spool(attachment)
    }
}
