/// The rules for document ids (spec D-1).
///
/// An id is any non-empty string. Ids starting with `_` are reserved: only `_design/<name>` (design
/// documents, which replicate) and `_local/<name>` (local documents, which never do) are accepted.
/// Prefixes are matched byte for byte, as CouchDB does, so `_Design/app` is not a design document.
///
/// ```swift
/// try DocumentID.validate("task-42")          // fine
/// try DocumentID.validate("_design/care")     // fine: a design document
/// try DocumentID.validate("_private")         // throws .invalidValue
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
    /// - Throws: ``CloudantError/Code/invalidValue`` with field `_id` and the id in `documentID` when the id
    ///   is empty, is a bare `_design/` or `_local/`, or starts with any other `_`.
    public static func validate(_ id: String) throws {
        func illegal(_ message: String) -> CloudantError {
            CloudantError(.invalidValue, message, context: .init(documentID: id, field: "_id"))
        }
        let bytes = id.utf8
        if bytes.isEmpty {
            throw illegal(
                "Document id must not be empty. Give the document a non-empty \"_id\", or leave \"_id\" out to have one generated.")
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

    /// Whether `id` names a local document (`_local/…`), which has no revision tree and never replicates
    /// (spec D-34). This only looks at the prefix; call ``validate(_:)`` to check the id.
    public static func isLocal(_ id: String) -> Bool {
        id.utf8.starts(with: localPrefix.utf8)
    }

    /// Whether `id` names a design document (`_design/…`). This only looks at the prefix; call
    /// ``validate(_:)`` to check the id.
    public static func isDesign(_ id: String) -> Bool {
        id.utf8.starts(with: designPrefix.utf8)
    }
}
