/// One member of a written document's `_attachments`, as the client sent it (spec D-39).
public enum IncomingAttachment: Sendable, Hashable {
    /// `"stub": true`: keep the attachment of the parent revision (its digest, when given, must match).
    case stub(digest: String?, revpos: Int?)
    /// `"data": "<base64>"`: new content. `revpos` and `digest` are kept from replicated documents;
    /// interactive writes compute their own.
    case data(contentType: String, bytes: [UInt8], revpos: Int?, digest: String?)

    /// Parses one `_attachments` member.
    /// - Throws: ``CloudantError/Code/invalidValue`` naming the attachment when it is neither a stub nor
    ///   inline data, when its base64 is malformed, or when its name starts with `_`.
    public init(name: String, json: JSONValue, documentID: String?) throws {
        func invalid(_ message: String) -> CloudantError {
            CloudantError(.invalidValue, message, context: .init(documentID: documentID, field: "_attachments.\(name)"))
        }
        guard !name.hasPrefix("_") else { throw invalid("Attachment names must not start with '_'.") }
        guard !name.isEmpty else { throw invalid("Attachment names must not be empty.") }
        guard case .object(let object) = json else { throw invalid("An attachment must be a JSON object.") }
        if object["stub"] == true {
            let revpos = object["revpos"]?.numberValue?.int64Value.map { Int($0) }
            self = .stub(digest: object["digest"]?.stringValue, revpos: revpos)
            return
        }
        if object["follows"] == true {
            throw invalid("'follows' attachments need a multipart/related request; send the data inline as base64.")
        }
        guard let base64 = object["data"]?.stringValue else {
            throw invalid("An attachment needs base64 'data' or 'stub': true.")
        }
        guard let bytes = Base64.decode(base64) else { throw invalid("The attachment's 'data' is not valid base64.") }
        let contentType = object["content_type"]?.stringValue ?? "application/octet-stream"
        let revpos = object["revpos"]?.numberValue?.int64Value.map { Int($0) }
        self = .data(contentType: contentType, bytes: bytes, revpos: revpos, digest: object["digest"]?.stringValue)
    }
}
