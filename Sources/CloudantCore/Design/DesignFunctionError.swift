/// How a design function failed, as CouchDB's query server reports it (`["error", name, reason]`): the typed
/// context of a `CloudantError` with code `CloudantError.Code.designFunctionFailed` (read it as
/// `CloudantError.designFunctionError`).
///
/// `name` is the error CouchDB answers with (`render_error`, `not_found`, `compilation_error`,
/// `os_process_error`, `reduce_overflow_error`, or a JavaScript error's name such as `TypeError`), and the
/// HTTP server answers with CouchDB's status for that name. The reason is the function's message; it names
/// no document body (a function's own message is its author's).
///
/// ```swift
/// do {
///     _ = try runtime.callDesignFunction(ddoc, path: ["shows", "missing"], arguments: [.null, request], session: nil)
/// } catch let error as CloudantError where error.designFunctionError?.name == "not_found" {
///     // The design document has no such show function.
/// }
/// ```
public struct DesignFunctionError: Error, Sendable, Hashable, CustomStringConvertible {
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
        if name == Self.timedOut.name, reason == Self.timedOut.reason { return .timedOut }
        return ErrorCategory(httpStatus: CouchDBErrorName.httpStatus(of: name) ?? 500)
    }

    /// The name and the reason.
    public var description: String { "\(name): \(reason)" }
}

/// The error a design function's failure is thrown as.
extension DesignFunctionError {
    /// The `CloudantError` a design function's failure is thrown as: code
    /// `CloudantError.Code.designFunctionFailed` in this failure's ``category``, with it as the underlying error.
    public var error: CloudantError {
        CloudantError(.designFunctionFailed(category: category), "\(name): \(reason)", underlying: self)
    }
}

/// The code of a design function's failure.
extension CloudantError.Code {
    /// A design function (map, reduce, validation, filter, show, list, update) failed, or its engine did;
    /// `CloudantError.designFunctionError` holds CouchDB's error name and reason. The category follows CouchDB's
    /// status for the name (`DesignFunctionError.category`), so this constant is for matching.
    public static let designFunctionFailed = Self("designFunctionFailed", category: .internal)

    /// The code of one design function's failure, in `category`.
    static func designFunctionFailed(category: ErrorCategory) -> Self {
        Self(designFunctionFailed.rawValue, category: category)
    }
}

/// A design function's failure, read from a `CloudantError`.
extension CloudantError {
    /// CouchDB's error name and reason for a `CloudantError.Code.designFunctionFailed` error.
    public var designFunctionError: DesignFunctionError? { underlying as? DesignFunctionError }
}
