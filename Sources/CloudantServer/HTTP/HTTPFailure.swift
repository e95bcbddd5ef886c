internal import CloudantCore

/// A request that must be answered with a CouchDB error body: thrown by route handlers and turned into a
/// response by ``CouchResponder`` only.
struct HTTPFailure: Error, Sendable {
    /// The status and body.
    var body: CouchErrorBody
    /// Extra response headers (for example `WWW-Authenticate`).
    var headers: [(String, String)] = []

    init(status: Int, error: String, reason: String) {
        body = CouchErrorBody(status: status, error: error, reason: reason)
    }

    /// A failure answered with `category`'s status and CouchDB error name.
    init(_ category: ErrorCategory, reason: String) {
        self.init(status: category.httpStatus, error: category.couchDBError, reason: reason)
    }

    static func badRequest(_ reason: String) -> HTTPFailure {
        HTTPFailure(.invalidInput, reason: reason)
    }

    static func notFound(_ reason: String = "missing") -> HTTPFailure {
        HTTPFailure(.notFound, reason: reason)
    }

    static let databaseNotFound = HTTPFailure.notFound("Database does not exist.")

    static func unauthorized(_ reason: String) -> HTTPFailure {
        HTTPFailure(.unauthorized, reason: reason)
    }

    static func forbidden(_ reason: String) -> HTTPFailure {
        HTTPFailure(.forbidden, reason: reason)
    }

    /// 405 with the methods that are, in the body and in `Allow` (`chttpd:send_method_not_allowed/2`).
    static func methodNotAllowed(_ allowed: String) -> HTTPFailure {
        var failure = HTTPFailure(status: 405, error: "method_not_allowed", reason: "Only \(allowed) allowed")
        failure.headers = [("Allow", allowed)]
        return failure
    }

    static let tooLarge = HTTPFailure(.tooLarge, reason: "the request entity is too large")
}
