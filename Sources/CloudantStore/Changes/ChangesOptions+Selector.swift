public import CloudantCore

extension ChangesOptions {
    /// Only documents a Mango selector matches, as CouchDB's `filter=_selector`.
    ///
    /// ```swift
    /// let selector = try MangoSelector(["entityType": "OCKTask"])
    /// let tasks = try await store.changes(ChangesOptions(since: 0, selector: selector))
    /// ```
    public init(
        since: Int64 = 0, limit: Int? = nil, descending: Bool = false, style: Style = .mainOnly,
        includeDocs: Bool = false, conflicts: Bool = false, documentIDs: [String]? = nil, selector: MangoSelector
    ) {
        self.init(
            since: since, limit: limit, descending: descending, style: style, includeDocs: includeDocs,
            conflicts: conflicts, documentIDs: documentIDs, filter: { try selector.matches($0, limits: .default) })
    }
}
