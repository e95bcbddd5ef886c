public import CloudantCore

extension CollectionQuery {
    /// Runs the query and returns the matching documents, sorted, paged and projected.
    ///
    /// ```swift
    /// let docs = try await store.collection("OCKContact").where(field: "title", value: "Nurse").get()
    /// docs.map { $0["_id"] }
    /// ```
    /// - Throws: `CloudantError` as ``request`` throws it (CouchDB's `bad_arg`, `invalid_operator`, …) for
    ///   a malformed query, or `.storeUnreadable` when the store cannot be read.
    public func get() async throws -> [JSONObject] {
        try await store.find(request).docs
    }

    /// Runs the query and decodes the documents as `type`, the same way ``DocumentStore/get(_:)`` does
    /// (schema upgrades included).
    ///
    /// ```swift
    /// let notes = try await store.collection(Note.self).sort(descending: "createdAt").get(Note.self)
    /// ```
    ///
    /// With ``fields``, list every member the type needs to decode (and `_rev` to keep its `revId`).
    /// - Throws: `CloudantError` `.unknownEntityType` when `type` is not registered; `.invalidInput` when
    ///   the query is for another kind than `type`'s, when the query is malformed (see ``get()``), or naming
    ///   the document that does not decode (nothing is dropped silently).
    public func get<Entity: CloudantEntity>(_ type: Entity.Type) async throws -> [Entity]
    where Entity.ID: CustomStringConvertible {
        let codec = EntityCodec(kind: try store.options.entityKind(for: type))
        guard codec.kind.name == kind else {
            throw CloudantError(
                .invalidInput,
                "This query is for '\(kind)' documents, but \(type) is stored as '\(codec.kind.name)'; "
                    + "start from collection(\(type).self).",
                context: .init(kind: kind))
        }
        return try await get().map(codec.entity(from:))
    }

    /// Watches the query: its documents now, then again after each commit that changes them (see
    /// ``DocumentStore/observe(_:limits:visibility:)``).
    ///
    /// ```swift
    /// for try await result in try store.collection("OCKTask").where(field: "carePlanUUID", value: plan).observe() {
    ///     render(result.docs)
    /// }
    /// ```
    /// - Throws: `CloudantError` as ``request`` throws it for a malformed query.
    public func observe() throws -> LiveQuery {
        try store.observe(request)
    }
}
