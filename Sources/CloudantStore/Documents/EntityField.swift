/// Body members the store writes into entity documents. They are ordinary JSON members so they replicate.
enum EntityField {
    /// The entity kind name (the original OTFCloudantStore's `entityType`).
    static let kind = "entityType"
    /// The schema version the entity was written with.
    static let schemaVersion = "entitySchemaVersion"
}
