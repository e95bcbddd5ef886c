public import CloudantCore
internal import CloudantStore
internal import Foundation

extension HTTPPeer {
    /// A CouchDB-compatible server sends any attachment on its own (`GET /db/doc/att?rev=`).
    public var sendsLargeAttachmentsSeparately: Bool { true }

    /// Reads the revisions with attachment stubs first (`attachments=false`); a document whose needed
    /// attachments include one stored at least `inlineAttachmentLimit` long gets them all marked
    /// `"follows_separately": true`; documents whose needed attachments are all small are read again with
    /// their data inline, as ``fetch(_:)`` reads them.
    ///
    /// An attachment is needed unless the target holds it for sure: last set (`revpos`) at generation 1 or
    /// later and no later than the newest revision the target has of this branch (CouchDB's `atts_since`
    /// rule). A `revpos` of 0, which CouchDB gives attachments written with `new_edits=false` and no revpos,
    /// or none at all, says nothing of where the content was set, so such an attachment is always fetched.
    public func fetch(_ requests: [RevisionRequest], inlineAttachmentLimit: Int) async throws -> [FetchedRevision] {
        var fetched = try await fetch(requests, attachments: false)
        let since = Dictionary(requests.map { ($0.id, $0.attachmentsSince) }, uniquingKeysWith: { $0 + $1 })
        var inlineAgain: [RevisionRequest] = []
        var positions: [String: Int] = [:]  // "id rev" → index in `fetched`
        for (index, revision) in fetched.enumerated() {
            guard case .document(var document) = revision, let id = document["_id"]?.stringValue,
                let rev = document["_rev"]?.stringValue, case .object(var attachments)? = document["_attachments"]
            else { continue }
            let known = AttachmentStubs.newestKnownGeneration(of: document, among: since[id] ?? [])
            let needed = attachments.members.filter { _, stub in
                guard let revpos = stub["revpos"]?.numberValue?.int64Value else { return true }
                return revpos < 1 || revpos > known
            }
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
                // `atts_since` would leave a revpos-0 attachment out again (the server applies the same rule):
                // ask for all of them then.
                let unplaced = needed.contains { ($0.1["revpos"]?.numberValue?.int64Value ?? 0) < 1 }
                inlineAgain.append(RevisionRequest(id: id, rev: rev, attachmentsSince: unplaced ? [] : since[id] ?? []))
                positions[id + " " + rev] = index
            }
        }
        guard !inlineAgain.isEmpty else { return fetched }
        for revision in try await fetch(inlineAgain, attachments: true) {
            let key: String
            switch revision {
            case .document(let document): key = (document["_id"]?.stringValue ?? "") + " " + (document["_rev"]?.stringValue ?? "")
            case .invalid(let id, let rev, _, _), .missing(let id, let rev): key = id + " " + rev
            }
            if let index = positions[key] { fetched[index] = revision }
        }
        return fetched
    }

    /// Downloads the attachment to a temporary file, then reads it in pieces: never whole in memory. It
    /// comes as written (decoded), so it carries the stub's digest only when the source keeps it unencoded.
    ///
    /// - Throws: `CloudantError` with code `CloudantError.Code.peerViolation` and
    ///   ``PeerViolation/attachmentLength(documentID:name:expected:received:)`` when the bytes are not as long
    ///   as the stub's `length` says (reading stops at that length), besides the failures of any request.
    public func attachment(documentID: String, rev: String, name: String, stub: JSONObject) async throws -> PeerAttachment {
        let path = CouchHTTPClient.encode(documentID) + "/" + CouchHTTPClient.encode(name)
        let expected = stub["length"]?.numberValue?.int64Value.map { Int($0) }
        let file: URL
        do {
            file = try await client.download(path, query: [("rev", rev)], accept: "*/*", expectedLength: expected)
        } catch let failure as CloudantError {
            guard case .bodyTooLarge(let limit)? = failure.peerViolation, limit == expected, let url = failure.context.url else { throw failure }
            throw CloudantError.peerViolation(
                url: url, violation: .attachmentLength(documentID: documentID, name: name, expected: limit, received: limit + 1))
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? nil
        if let expected, let size, size != expected {
            try? FileManager.default.removeItem(at: file)
            throw CloudantError.peerViolation(
                url: url.appendingPathComponent(documentID).appendingPathComponent(name),
                violation: .attachmentLength(documentID: documentID, name: name, expected: expected, received: size))
        }
        guard let handle = try? FileHandle(forReadingFrom: file) else {
            throw CloudantError(.storeUnreadable, "Could not read the downloaded attachment \(name).", context: .init(url: url))
        }
        try? FileManager.default.removeItem(at: file)  // The open handle keeps the bytes until it closes.
        let encoded = stub["encoding"]?.stringValue.map { $0 != "identity" } ?? false
        return PeerAttachment(
            contentType: stub["content_type"]?.stringValue ?? "application/octet-stream", encoding: .identity,
            length: Int(stub["length"]?.numberValue?.int64Value ?? 0),
            digest: encoded ? nil : stub["digest"]?.stringValue,
            revpos: Int(stub["revpos"]?.numberValue?.int64Value ?? 1), pieces: AttachmentByteStream(FilePieces(handle: handle)))
    }

    /// The length of an attachment's stored bytes, by its stub.
    static func storedLength(_ stub: JSONValue) -> Int {
        Int(stub["encoded_length"]?.numberValue?.int64Value ?? stub["length"]?.numberValue?.int64Value ?? 0)
    }
}

extension HTTPPeer {
    /// Takes large attachments separately: spooled to files in ``spoolDirectory`` and uploaded with their document as
    /// `multipart/related` (see `MultipartUpload`), which CouchDB and `cloudant serve` stream to disk.
    public var receivesLargeAttachmentsSeparately: Bool { true }

    public func receive(_ attachment: PeerAttachment, documentID: String, name: String) async throws -> JSONValue {
        try await MultipartUpload.spool(attachment, in: spoolDirectory)
    }
}
