// The codes of design documents' validation functions. The HTTP server answers each with CouchDB's status and
// error name for what the function threw.

/// The codes of a design document's `validate_doc_update` refusing a write.
extension CloudantError.Code {
    /// A design document's `validate_doc_update` refused the write with `throw({forbidden: message})`
    /// (CouchDB 403 `forbidden`). The message is the function's.
    public static let validationForbidden = Self("validationForbidden", category: .forbidden)
    /// A `validate_doc_update` refused the write with `throw({unauthorized: message})` (CouchDB 401
    /// `unauthorized`): log in as someone the function lets write.
    public static let validationUnauthorized = Self("validationUnauthorized", category: .unauthorized)
    /// A `validate_doc_update` refused the write with something else it threw (CouchDB 500 `unknown_error`).
    public static let validationFailed = Self("validationFailed", category: .internal)
}

/// The codes of design functions that fail: compilation, errors thrown while running, time limits.
extension CloudantError.Code {
    /// A design document's map or reduce function does not compile (CouchDB 400 `compilation_error`, when the
    /// design document is saved).
    public static let compilationError = Self("compilationError", category: .invalidInput)
}
