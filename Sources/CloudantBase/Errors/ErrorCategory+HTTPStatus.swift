/// The one table between categories and HTTP statuses, both ways: the server answers a category with its
/// status, and the replicator and repositories read a peer's status as a category.
///
/// | category | answered with | read from |
/// |---|---|---|
/// | ``ErrorCategory/invalidInput`` | 400 | any other 4xx |
/// | ``ErrorCategory/unauthorized`` | 401 | 401 |
/// | ``ErrorCategory/forbidden`` | 403 | 403 |
/// | ``ErrorCategory/notFound`` | 404 | 404, 410 |
/// | ``ErrorCategory/timedOut`` | 408 | 408, 504 |
/// | ``ErrorCategory/conflict`` | 409 | 409 |
/// | ``ErrorCategory/preconditionFailed`` | 412 | 412 |
/// | ``ErrorCategory/tooLarge`` | 413 | 413 |
/// | ``ErrorCategory/internal`` | 500 | 500 and any status not listed |
/// | ``ErrorCategory/unsupported`` | 501 | 501 |
/// | ``ErrorCategory/unavailable`` | 503 | 429, 502, 503 |
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

    /// The category of a peer's error status; every category's own ``httpStatus`` reads back as it.
    ///
    /// ```swift
    /// ErrorCategory(httpStatus: 429)   // .unavailable: retry later
    /// ```
    public init(httpStatus status: Int) {
        self =
            switch status {
            case 401: .unauthorized
            case 403: .forbidden
            case 404, 410: .notFound
            case 408, 504: .timedOut
            case 409: .conflict
            case 412: .preconditionFailed
            case 413: .tooLarge
            case 429, 502, 503: .unavailable
            case 501: .unsupported
            case 400..<500: .invalidInput
            default: .internal
            }
    }
}
