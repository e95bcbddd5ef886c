/// A design function failed, as CouchDB's query server reports it: `["error", name, reason]`.
///
/// `name` is the error CouchDB answers with (`render_error`, `not_found`, `compilation_error`,
/// `os_process_error`, `reduce_overflow_error`, or a JavaScript error's name such as `TypeError`), and the
/// HTTP server answers with CouchDB's status for that name. The reason is the function's message; it names
/// no document body (a function's own message is its author's).
///
/// ```swift
/// do {
///     _ = try runtime.callDesignFunction(ddoc, path: ["shows", "missing"], arguments: [.null, request], session: nil)
/// } catch let error as DesignFunctionError where error.name == "not_found" {
///     // The design document has no such show function.
/// }
/// ```
public struct DesignFunctionError: CategorizedError, Sendable, Hashable, CustomStringConvertible {
    /// CouchDB's error name.
    public var name: String
    /// What went wrong, as the function or the engine said it.
    public var reason: String
    /// Whether the engine instance that ran the function is unusable afterwards (CouchDB's `fatal` errors
    /// and time-outs, after which CouchDB restarts the query server process).
    public var isFatal: Bool

    /// Creates an error.
    public init(name: String, reason: String, isFatal: Bool = false) {
        self.name = name
        self.reason = reason
        self.isFatal = isFatal
    }

    /// The error CouchDB reports when a function runs longer than the time allowed (`os_process_timeout`).
    public static let timedOut = DesignFunctionError(name: "os_process_error", reason: "OS process timed out.", isFatal: true)

    /// A function's source does not compile.
    public static func compilation(_ reason: String) -> DesignFunctionError {
        DesignFunctionError(name: "compilation_error", reason: reason)
    }

    /// The category an edge answers with, following CouchDB's status for the name (chttpd's `error_info`).
    public var category: ErrorCategory {
        switch name {
        case "not_found": .notFound
        case "forbidden": .forbidden
        case "unauthorized": .unauthorized
        case "bad_request", "compilation_error", "query_parse_error", "invalid_design_doc": .invalidInput
        case "os_process_error" where reason == Self.timedOut.reason: .timedOut
        default: .internal
        }
    }

    /// The name and the reason.
    public var description: String { "\(name): \(reason)" }
}
