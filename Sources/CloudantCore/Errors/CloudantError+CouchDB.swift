extension CloudantError.Code {
    /// An attachment stub names an attachment the parent revision does not have (CouchDB 412 `missing_stub`).
    public static let missingStub = CloudantError.Code(rawValue: "missingStub")
    /// A document member or attachment is not allowed (CouchDB 400 `doc_validation`).
    public static let documentValidation = CloudantError.Code(rawValue: "documentValidation")
    /// A design document breaks CouchDB's rules for its members (CouchDB 400 `invalid_design_doc`).
    public static let invalidDesignDocument = CloudantError.Code(rawValue: "invalidDesignDocument")
    /// Attachment bytes do not match the digest sent with them (CouchDB 400 `content_md5_mismatch`).
    public static let attachmentDigestMismatch = CloudantError.Code(rawValue: "attachmentDigestMismatch")
}

extension CloudantError {
    /// The HTTP status and error name CouchDB uses for the same failure (spec D-66), for edges that speak
    /// CouchDB's JSON: the HTTP endpoint, the CLI and `_bulk_docs`-shaped results.
    public var couchDB: (status: Int, error: String) {
        if let kind = queryErrorKind { return (kind.httpStatus, kind.rawValue) }
        return switch code {
        case .conflict: (409, "conflict")
        case .notFound: (404, "not_found")
        case .missingStub: (412, "missing_stub")
        case .documentValidation: (400, "doc_validation")
        case .invalidDesignDocument: (400, "invalid_design_doc")
        case .attachmentDigestMismatch: (400, "content_md5_mismatch")
        case .invalidValue, .unknownEntityType:
            context.field == "_id" ? (400, "illegal_docid") : (400, "bad_request")
        case .timedOut: (408, "timeout")
        default: (500, "internal_server_error")
        }
    }

    /// The `reason` CouchDB writes for this error. Clients match some reasons exactly (a conflict is always
    /// "Document update conflict."), so those are CouchDB's words; the rest are this error's message.
    public var couchDBReason: String {
        code == .conflict ? "Document update conflict." : message
    }

    /// CouchDB's `{"error": …, "reason": …}` object for this error.
    public var couchDBBody: JSONValue {
        ["error": .string(couchDB.error), "reason": .string(couchDBReason)]
    }
}
