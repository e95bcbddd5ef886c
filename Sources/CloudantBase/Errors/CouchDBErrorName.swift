/// CouchDB's HTTP status for the error names it writes.
///
/// Some answers carry an error's name without a status: a `_bulk_docs` row, a design function's thrown
/// `{error: …, reason: …}`. CouchDB gives each name one status in chttpd's `error_info`; this is that table read
/// by the name it writes, so every edge that meets a bare name (the replicator's rows, repositories, the server
/// relaying a design function's failure) answers as CouchDB would. Names CouchDB writes through
/// `{bad_request, Name, Reason}` (`compilation_error`, `invalid_design_doc`) are 400 as that tuple is.
package enum CouchDBErrorName {
    /// The status CouchDB answers an error of this name with, or `nil` when its table does not list the name
    /// (a thrown error of such a name is answered 500; what a bare row means is the caller's rule).
    ///
    /// ```swift
    /// CouchDBErrorName.httpStatus(of: "not_found")   // 404
    /// CouchDBErrorName.httpStatus(of: "TypeError")   // nil
    /// ```
    package static func httpStatus(of name: String) -> Int? {
        switch name {
        case "bad_request", "query_parse_error", "illegal_database_name", "illegal_docid", "illegal_partition",
            "database_name_too_long", "doc_validation", "invalid_replication", "compilation_error",
            "invalid_design_doc":
            400
        case "unauthorized": 401
        case "forbidden", "partition_overflow": 403
        case "not_found": 404
        case "method_not_allowed": 405
        case "not_acceptable": 406
        case "conflict": 409
        case "gone": 410
        case "file_exists", "nodedown", "missing_stub": 412
        case "too_large", "attachment_too_large", "document_too_large", "request_body_too_large": 413
        case "too_long": 414
        case "bad_content_type": 415
        case "requested_range_not_satisfiable": 416
        case "expectation_failed": 417
        case "internal_server_error", "write_quorum_not_met", "timeout", "unknown_error": 500
        case "not_implemented": 501
        case "service unavailable", "security_migration": 503
        case "insufficient_storage": 507
        default: nil
        }
    }
}
