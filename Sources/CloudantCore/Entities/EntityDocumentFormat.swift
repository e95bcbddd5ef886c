/// How an entity kind lays out its documents: which body member names the kind, and whether the store
/// stamps a schema version.
///
/// There are two layouts, and the store recognises both in any document it holds (written here or
/// replicated in), so typed reads, the kind index and the query builder work for either:
///
/// - ``standard``: the store's own layout, OTFCloudantStore's `entityType` plus `entitySchemaVersion`.
/// - ``incrementalStore``: CDTDatastore's Core Data bridge (`CDTIncrementalStore`), whose documents name
///   their entity in `CDTISEntityName` and carry no schema version (the object model's version hashes,
///   kept in the `CDTISMetaData` document, play that part). The `CloudantModel` module writes it.
///
/// The set is closed on purpose: a store classifies documents replicated in from peers that never saw
/// this process's registry, so the members it looks at must not depend on which plugins are installed.
public enum EntityDocumentFormat: Sendable, Hashable {
    /// `entityType` and `entitySchemaVersion`, stamped by the store.
    case standard
    /// `CDTISEntityName`, written by the entity's own encoding; no schema version.
    case incrementalStore

    /// The body member naming the kind.
    public var kindField: String {
        switch self {
        case .standard: "entityType"
        case .incrementalStore: "CDTISEntityName"
        }
    }

    /// The body member holding the schema version the store stamps, if the layout has one.
    public var schemaVersionField: String? {
        switch self {
        case .standard: "entitySchemaVersion"
        case .incrementalStore: nil
        }
    }

    /// The kind a document body declares: its `entityType`, or else its `CDTISEntityName`.
    ///
    /// ```swift
    /// EntityDocumentFormat.kindName(in: ["CDTISEntityName": "Recipe", "name": "Soup"])   // "Recipe"
    /// ```
    public static func kindName(in body: JSONObject) -> String? {
        body[Self.standard.kindField]?.stringValue ?? body[Self.incrementalStore.kindField]?.stringValue
    }
}
