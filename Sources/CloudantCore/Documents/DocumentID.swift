/// The rules for document ids.
///
/// An id is any non-empty string of valid UTF-8 without NUL. Ids starting with `_` are reserved: only
/// `_design/<name>` (design documents, which replicate) and `_local/<name>` (local documents, which never
/// do) are accepted. Prefixes are matched byte for byte, as CouchDB does, so `_Design/app` is not a design
/// document.
///
/// NUL is refused where CouchDB accepts it: SQLite's C strings and many clients end text at the first NUL,
/// so `a\u{0}x` would silently read and write the document `a` (a deliberate difference, listed in the
/// README). Bytes from outside (a URL path) go through ``decode(utf8:)``, which refuses invalid UTF-8 with
/// CouchDB's reason instead of repairing it into a different id.
///
/// ```swift
/// try DocumentID.validate("task-42")          // fine
/// try DocumentID.validate("_design/care")     // fine: a design document
/// try DocumentID.validate("_private")         // throws .invalidInput
/// DocumentID.isLocal("_local/checkpoint")     // true
/// ```
public enum DocumentID {
    private static let designPrefix = "_design/"
    private static let localPrefix = "_local/"

    /// Checks that `id` may name a document.
    ///
    /// The messages start with CouchDB's own `illegal_docid` reason ("Only reserved document ids may start
    /// with underscore.") followed by what to do.
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with field `_id` and the id in `documentID` when the id
    ///   is empty, contains NUL, is a bare `_design/` or `_local/`, or starts with any other `_`.
    public static func validate(_ id: String) throws {
        func illegal(_ message: String) -> CloudantError {
            CloudantError(.invalidInput, message, context: .init(documentID: id, field: "_id"))
        }
        let bytes = id.utf8
        if bytes.isEmpty {
            throw illegal(
                "Document id must not be empty. Give the document a non-empty \"_id\", or leave \"_id\" out to have one generated.")
        }
        if bytes.contains(0) {
            throw CloudantError(
                .invalidInput,
                "Document id must not contain NUL (\\u0000): the id would be cut at it. Remove the NUL character from the id.",
                context: .init(documentID: id.replacingNUL, field: "_id"))
        }
        guard bytes.first == UInt8(ascii: "_") else { return }
        for prefix in [designPrefix, localPrefix] where bytes.starts(with: prefix.utf8) {
            if bytes.count == prefix.utf8.count {
                throw illegal("Illegal document id `\(prefix)`. Add a name after the slash, as in \"\(prefix)app\".")
            }
            return
        }
        throw illegal(
            "Only reserved document ids may start with underscore. Remove the leading \"_\", or use \"_design/<name>\" or \"_local/<name>\".")
    }

    /// Decodes an id given as bytes (a percent-decoded URL segment) and checks it with ``validate(_:)``.
    ///
    /// ```swift
    /// try DocumentID.decode(utf8: Array("task-42".utf8))   // "task-42"
    /// try DocumentID.decode(utf8: [0x61, 0xFF])            // throws: not UTF-8
    /// ```
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with field `_id`: "Document id must be valid UTF-8"
    ///   (CouchDB's reason) for bytes that are not well-formed UTF-8, or any error of ``validate(_:)``.
    public static func decode(utf8 bytes: some Collection<UInt8>) throws -> String {
        guard let id = String(validating: bytes, as: UTF8.self) else {
            throw CloudantError(
                .invalidInput,
                "Document id must be valid UTF-8. Percent-encode the id's UTF-8 bytes in the URL, as in %C3%A9 for é.",
                context: .init(documentID: String(decoding: bytes, as: UTF8.self), field: "_id"))
        }
        try validate(id)
        return id
    }

    /// Whether `id` names a local document (`_local/…`), which has no revision tree and never replicates.
    /// This only looks at the prefix; call ``validate(_:)`` to check the id.
    public static func isLocal(_ id: String) -> Bool {
        id.utf8.starts(with: localPrefix.utf8)
    }

    /// Whether `id` names a design document (`_design/…`). This only looks at the prefix; call
    /// ``validate(_:)`` to check the id.
    public static func isDesign(_ id: String) -> Bool {
        id.utf8.starts(with: designPrefix.utf8)
    }
}

extension String {
    /// The string with NUL shown as `\u0000`, so an error's context prints whole.
    fileprivate var replacingNUL: String {
        guard utf8.contains(0) else { return self }
        return String(decoding: utf8.flatMap { $0 == 0 ? Array("\\u0000".utf8) : [$0] }, as: UTF8.self)
    }
}
