public import CloudantCore

/// Which documents a reader may see: a predicate on each document's winning revision, which the store applies
/// before anything the reader asked for looks at the document.
///
/// A server with per-document access lists passes one to ``DocumentStore/find(_:limits:visibility:)``,
/// ``DocumentStore/observe(_:limits:visibility:)`` and ``ChangesOptions/visibility``. A document the predicate
/// refuses is read, judged and dropped before the reader's selector, filter or `$regex` runs on it, and it
/// counts nowhere (not in `execution_stats`, not in `pending`), so a hidden document answers exactly as a
/// missing one: by content, status, count, and by timing beyond the cost of reading and judging it.
///
/// ```swift
/// let mine = DocumentVisibility { document in document["owner"] == "alice" }
/// let page = try await store.find(request, visibility: mine)   // only alice's documents are looked at
/// ```
///
/// The predicate sees the winning revision as `GET` returns it (`_id`, `_rev`, the body, a tombstone's
/// `_deleted`); design documents are offered to it too. It must be quick and must not throw.
public struct DocumentVisibility: Sendable {
    private let predicate: @Sendable (JSONObject) -> Bool

    /// A visibility that shows the documents `predicate` accepts.
    public init(_ predicate: @escaping @Sendable (JSONObject) -> Bool) {
        self.predicate = predicate
    }

    /// Whether the reader may see `document` (its winning revision).
    public func allows(_ document: JSONObject) -> Bool { predicate(document) }
}
