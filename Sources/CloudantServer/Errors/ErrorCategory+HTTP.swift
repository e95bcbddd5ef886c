public import CloudantCore

/// The HTTP side of each `ErrorCategory`: the one table that turns a category into a status and
/// CouchDB's generic error name for it. A few codes have a more specific CouchDB name in their category (see
/// ``CouchErrorBody``); the status never depends on more than the category.
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
    /// The HTTP status an error of this category is answered with.
    ///
    /// ```swift
    /// ErrorCategory.conflict.httpStatus   // 409
    /// ```
    public var httpStatus: Int {
        switch self {
        case .invalidInput: 400
        case .unauthorized: 401
        case .forbidden: 403
        case .notFound: 404
        case .timedOut: 408
        case .conflict: 409
        case .preconditionFailed: 412
        case .tooLarge: 413
        case .internal: 500
        case .unsupported: 501
        case .unavailable: 503
        }
    }

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
