public import CloudantCore
internal import CloudantSync

/// A CouchDB error response: the HTTP status and the `{"error": …, "reason": …}` body CouchDB writes.
///
/// Errors become HTTP only here, at the edge: every module throws errors that know their
/// `ErrorCategory`, the status comes from the category
/// (`ErrorCategory.httpStatus`), and the error name is CouchDB's for the category unless the
/// error's code has a more specific one.
///
/// ```swift
/// let body = CouchErrorBody(CloudantError(.conflict, "Document update conflict."))
/// // body.status == 409, body.error == "conflict"
/// ```
public struct CouchErrorBody: Sendable, Hashable {
    /// The HTTP status code.
    public var status: Int
    /// CouchDB's error name (`conflict`, `not_found`, `bad_request`, …).
    public var error: String
    /// The human-readable reason.
    public var reason: String
    /// The reason as CouchDB writes it when it is not text: a validation function's object reason
    /// (`CloudantError.Context.reasonValue`). `nil` writes ``reason``.
    public var reasonValue: JSONValue?

    /// Creates an error body.
    public init(status: Int, error: String, reason: String) {
        self.status = status
        self.error = error
        self.reason = reason
    }

    /// Maps a store error (of any module: core, care, health) to the status and error name CouchDB uses for
    /// the same failure.
    ///
    /// The status is the error's category's. The name is the category's too, except for the codes CouchDB
    /// names more precisely within their category:
    ///
    /// | error | category | CouchDB `error` |
    /// |---|---|---|
    /// | a query error (`QueryErrorKind`) | its kind's | the kind's raw value (`bad_arg`, `index_not_found`, …) |
    /// | `CloudantError.Code.invalidInput` or `CloudantError.Code.unknownEntityType` on the field `_id` | invalid input | `illegal_docid` |
    /// | `CloudantError.Code.documentValidation` | invalid input | `doc_validation` |
    /// | `CloudantError.Code.invalidDesignDocument` | invalid input | `invalid_design_doc` |
    /// | `CloudantError.Code.attachmentDigestMismatch` | invalid input | `content_md5_mismatch` |
    /// | `CloudantError.Code.attachmentTooLarge` | too large | `attachment_too_large` |
    /// | `CloudantError.Code.missingStub` | precondition failed | `missing_stub` |
    /// | `CloudantError.Code.peerRefused` | the peer's status's | the peer's own `error` |
    /// | `CloudantError.Code.designFunctionFailed` | CouchDB's status for the name (``init(designFunctionError:)``) | the function's `error` name |
    ///
    /// The reason is the error's message, except where clients match CouchDB's reason exactly: a conflict's
    /// "Document update conflict.", an `illegal_docid`, an invalid revision or attachment stub, whose messages
    /// start with CouchDB's reason and go on with what to do (CouchDB's words alone go on the wire), an
    /// attachment over the size limit (its name), and a peer's refusal, whose reason is the peer's own.
    public init(_ storeError: CloudantError) {
        if storeError.code == .designFunctionFailed, let failure = storeError.designFunctionError {
            self.init(designFunctionError: failure)
            return
        }
        let category = storeError.category
        let name = Self.name(of: storeError) ?? category.couchDBError
        var reason = storeError.code == .conflict ? "Document update conflict." : storeError.context.peerReason ?? storeError.message
        if name == "illegal_docid", let couch = Self.illegalDocIDReasons.first(where: { reason.hasPrefix($0) }) {
            reason = couch
        }
        reason = Self.couchDBReason(reason, of: storeError, name: name)
        self.init(status: category.httpStatus, error: name, reason: reason)
        reasonValue = storeError.context.reasonValue
    }

    /// CouchDB's own words where a store message starts with them and goes on with what to do: a malformed
    /// revision is "Invalid rev format" (`couch_doc:parse_rev/1`), a stub without its attachment "Invalid
    /// attachment stub in {id} for {name}" (`couch_doc:merge_stubs/2`), and an attachment over the size limit
    /// is named by itself (`chttpd:error_info({request_entity_too_large, {attachment, Name}})`).
    private static func couchDBReason(_ reason: String, of error: CloudantError, name: String) -> String {
        let attachment = error.context.field.flatMap { $0.hasPrefix("_attachments.") ? String($0.dropFirst("_attachments.".count)) : nil }
        switch error.code {
        case .invalidInput where reason.hasPrefix("Invalid rev format"): return "Invalid rev format"
        case .missingStub:
            guard let attachment, let id = error.context.documentID else { return reason }
            let couch = "Invalid attachment stub in \(id) for \(attachment)"
            return reason.hasPrefix(couch) ? couch : reason
        case .attachmentTooLarge: return attachment ?? reason
        default: return reason
        }
    }

    /// `couch_doc:validate_docid/1`'s reasons, word for word.
    static let illegalDocIDReasons = [
        "Document id must not be empty", "Illegal document id `_design/`", "Illegal document id `_local/`",
        "Document id is too long", "Document id must be valid UTF-8",
        "Only reserved document ids may start with underscore.", "Document id must be a string",
    ]

    /// Maps any error: a `CloudantError` as the initializer taking one does, another
    /// `CategorizedError` by its category with its description as the reason, and any other
    /// error as CouchDB's 500 `unknown_error`, without its details (they may name internals).
    public init(_ error: any Error) {
        switch error {
        case let error as CloudantError:
            self.init(error)
        case let error as any CategorizedError:
            self.init(status: error.category.httpStatus, error: error.category.couchDBError, reason: String(describing: error))
        default:
            self.init(status: 500, error: "unknown_error", reason: "The server could not answer the request.")
        }
    }

    /// A design function's failure, with CouchDB's status for its name (chttpd's `error_info`: `not_found` 404,
    /// `forbidden` 403, `unauthorized` 401, `not_acceptable` 406, `method_not_allowed` 405, `bad_request`,
    /// `query_parse_error` and `compilation_error` 400, …); any name CouchDB's table does not list (a
    /// `render_error`, a JavaScript exception, `os_process_error` for a time-out) is 500, as CouchDB answers it.
    public init(designFunctionError error: DesignFunctionError) {
        self.init(status: CouchDBErrorName.httpStatus(of: error.name) ?? 500, error: error.name, reason: error.reason)
    }

    /// The body as CouchDB writes it, with `error` before `reason`.
    public var json: JSONValue {
        ["error": .string(error), "reason": reasonJSON]
    }

    /// The `reason` member: ``reasonValue`` when there is one, else ``reason``.
    public var reasonJSON: JSONValue { reasonValue ?? .string(reason) }

    /// CouchDB's name for a code more specific than its category's, or `nil` when the category's name is it.
    private static func name(of error: CloudantError) -> String? {
        if let kind = error.queryErrorKind { return kind.rawValue }
        return switch error.code {
        case .missingStub: "missing_stub"
        case .documentValidation: "doc_validation"
        case .invalidDesignDocument: "invalid_design_doc"
        case .attachmentDigestMismatch: "content_md5_mismatch"
        case .attachmentTooLarge: "attachment_too_large"
        case .partitionOverflow: "partition_overflow"
        case .validationForbidden: "forbidden"
        case .validationUnauthorized: "unauthorized"
        case .validationFailed: "unknown_error"
        case .compilationError: "compilation_error"
        case .invalidInput, .unknownEntityType: error.context.field == "_id" ? "illegal_docid" : nil
        case .peerRefused: error.context.peerError
        default: nil
        }
    }
}
