public import CloudantCore
public import CloudantModelSchema

/// A model object with conflicting revisions after a pull, as Core Data's `NSMergeConflict` presents it:
/// the object as it was here before the pull (`local`, Core Data's object snapshot), the version the pull
/// brought (`remote`, Core Data's persisted snapshot), and the revision both descend from when the tree
/// still has its body.
///
/// ```swift
/// for conflict in try await pull.processConflicts() {
///     print(conflict.objectID, conflict.changedProperties(on: .local), conflict.changedProperties(on: .remote))
/// }
/// ```
public struct ModelConflict: Sendable {
    /// The side of a conflict (`local` is this store before the pull, `remote` the pulled version).
    public typealias Side = ConflictSide

    /// One revision of the object.
    public struct Snapshot: Sendable, Hashable {
        /// The revision id.
        public var rev: String
        /// The document body (with `_id` and `_rev`).
        public var body: JSONObject

        /// `CDTISObjectVersion`.
        public var objectVersion: Int { ModelStore.objectVersion(body) }

        /// The value of attribute `name` on this side.
        /// - Throws: `CloudantError.Code.schemaViolation` when the value breaks the schema.
        public func value(_ name: String, entity: EntityDescription) throws -> AttributeValue? {
            guard let property = entity.property(named: name) else { return nil }
            return try IncrementalStoreCoding.read(property, in: body, documentID: body["_id"]?.stringValue, entity: entity.name)
        }

        /// This side as a generated entity value.
        /// - Throws: `CloudantError.Code.schemaViolation` when it does not decode.
        public func decode<Entity: ModelEntity>(as type: Entity.Type) throws -> Entity {
            try Entity(jsonObject: body)
        }

        /// The stored form of property `name`: its member and its `CDTISMeta_` member.
        func stored(_ name: String) -> [JSONValue?] {
            [body[name], body[IncrementalStore.metaKey(name)]]
        }
    }

    /// The document id.
    public var objectID: String
    /// The entity.
    public var entity: EntityDescription
    /// The object before the pull.
    public var local: Snapshot
    /// The pulled version.
    public var remote: Snapshot
    /// The common ancestor of the two, when the store still has its body.
    public var ancestor: Snapshot?
    /// Every live leaf revision, CouchDB's winner first: the resolution is written on the first and the
    /// others get tombstones.
    public var leaves: [String]

    /// The properties a side changed since the ancestor (every property that differs from the other side
    /// when there is no ancestor).
    public func changedProperties(on side: Side) -> [String] {
        entity.properties.map(\.name).filter { changed($0, on: side) }
    }

    func snapshot(_ side: Side) -> Snapshot { side == .local ? local : remote }

    func changed(_ name: String, on side: Side) -> Bool {
        let mine = snapshot(side).stored(name)
        guard let ancestor else { return mine != snapshot(side == .local ? .remote : .local).stored(name) }
        return mine != ancestor.stored(name)
    }

    /// A body that takes each property from the side `choose` names; `CDTISObjectVersion` is one past both
    /// sides', and `CDTISIdentifier` the first leaf's (so every replica writes the same body).
    ///
    /// ```swift
    /// let body = conflict.merged { property in property.name == "rating" ? .local : .remote }
    /// ```
    public func merged(choosing choose: (PropertyDescription) -> Side) -> JSONObject {
        var body: JSONObject = [IncrementalStore.entityNameKey: .string(entity.name)]
        let first = leaves.first == remote.rev ? remote : local
        if let identifier = first.body[IncrementalStore.identifierKey] ?? local.body[IncrementalStore.identifierKey] {
            body[IncrementalStore.identifierKey] = identifier
        }
        body[IncrementalStore.objectVersionKey] = .string(String(max(local.objectVersion, remote.objectVersion) + 1))
        for property in entity.properties {
            let source = snapshot(choose(property)).body
            body[property.name] = source[property.name]
            body[IncrementalStore.metaKey(property.name)] = source[IncrementalStore.metaKey(property.name)]
        }
        return body
    }
}
