// The codes of CouchDB's document rules. Each has a category; the HTTP server answers each with its own CouchDB
// error name (`missing_stub`, `doc_validation`, …), which is why they are codes and not just messages.

extension CloudantError.Code {
    /// An attachment stub names an attachment the parent revision does not have (CouchDB 412 `missing_stub`).
    ///
    /// Send the attachment's bytes instead of a stub, or base the edit on a revision that has it.
    public static let missingStub = Self("missingStub", category: .preconditionFailed)
    /// A document member or attachment is not allowed (CouchDB 400 `doc_validation`).
    public static let documentValidation = Self("documentValidation", category: .invalidInput)
    /// A design document breaks CouchDB's rules for its members (CouchDB 400 `invalid_design_doc`).
    public static let invalidDesignDocument = Self("invalidDesignDocument", category: .invalidInput)
    /// Attachment bytes do not match the digest sent with them (CouchDB 400 `content_md5_mismatch`).
    public static let attachmentDigestMismatch = Self("attachmentDigestMismatch", category: .invalidInput)
    /// An attachment is longer than the limit the store or server accepts (CouchDB 413
    /// `attachment_too_large`, `max_attachment_size`). Nothing of it was stored.
    public static let attachmentTooLarge = Self("attachmentTooLarge", category: .tooLarge)
    /// A replicated revision would give its document more conflicting leaves than the store keeps
    /// (the store's `maxLeavesPerDocument`; CouchDB has no such bound). The revision was not
    /// stored; the document's others are unchanged. Resolve the document's conflicts, or raise the bound.
    public static let tooManyLeaves = Self("tooManyLeaves", category: .tooLarge)
    /// A write would make a document of a partition that already holds the store's maximum larger (CouchDB 403
    /// `partition_overflow`, `couchdb/max_partition_size`). Delete or shrink documents of the partition, or
    /// raise the maximum.
    public static let partitionOverflow = Self("partitionOverflow", category: .forbidden)
}
