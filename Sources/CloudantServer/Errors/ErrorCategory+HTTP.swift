public import CloudantCore

/// CouchDB's generic error name for each `ErrorCategory`, beside the status the category is answered with
/// (`ErrorCategory.httpStatus`, whose table the replicator reads back). A few codes have a more specific
/// CouchDB name in their category (see ``CouchErrorBody``); the status never depends on more than the
/// category.
///
/// | category | status | CouchDB `error` |
/// |---|---|---|
/// | invalid input | 400 | `bad_request` |
/// | unauthorized | 401 | `unauthorized` |
/// | forbidden | 403 | `forbidden` |
/// | not found | 404 | `not_found` |
/// | timed out | 408 | `timeout` |
/// | conflict | 409 | `conflict` |
/// | precondition failed | 412 | `precondition_failed` |
/// | too large | 413 | `too_large` |
/// | internal | 500 | `internal_server_error` |
/// | unsupported | 501 | `not_implemented` |
/// | unavailable | 503 | `service_unavailable` |
extension ErrorCategory {
    /// CouchDB's error name for the category, used when the error has no more specific name.
    public var couchDBError: String {
        switch self {
        case .invalidInput: "bad_request"
        case .unauthorized: "unauthorized"
        case .forbidden: "forbidden"
        case .notFound: "not_found"
        case .timedOut: "timeout"
        case .conflict: "conflict"
        case .preconditionFailed: "precondition_failed"
        case .tooLarge: "too_large"
        case .internal: "internal_server_error"
        case .unsupported: "not_implemented"
        case .unavailable: "service_unavailable"
        }
    }
}
