public import CloudantCore

extension DocumentStore {
    /// Starts a query over the documents of one kind (those whose `entityType` member is `kind`).
    ///
    /// ```swift
    /// let doctors = try await store.collection("OCKContact", fields: ["_id", "title"])
    ///     .where(field: "title", value: "Family Practice Doctor")
    ///     .sort(ascending: "_id")
    ///     .get()
    /// ```
    /// - Parameters:
    ///   - kind: The kind name, as the entity registry stores it.
    ///   - fields: The members to return (dotted paths allowed); `nil` returns whole documents.
    public func collection(_ kind: String, fields: [String]? = nil) -> CollectionQuery {
        CollectionQuery(store: self, kind: kind, fields: fields)
    }

    /// Starts a query over the entities of a registered type.
    ///
    /// ```swift
    /// let recent = try await store.collection(Note.self).sort(descending: "createdAt").limit(5).get(Note.self)
    /// ```
    /// An unregistered type gives a query for its type name, which matches nothing; decoding with
    /// ``CollectionQuery/get(_:)`` then throws `.unknownEntityType`.
    public func collection<Entity: CloudantEntity>(_ type: Entity.Type, fields: [String]? = nil) -> CollectionQuery {
        collection(options.registry.kind(for: type)?.name ?? String(describing: type), fields: fields)
    }
}
