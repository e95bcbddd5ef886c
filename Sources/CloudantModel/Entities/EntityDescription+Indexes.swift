public import CloudantCore
public import CloudantModelSchema

// The store indexes of a model's entities. Here, not beside `EntityDescription`, because index definitions
// belong to the store's core: the model-file logic builds on JSON and errors alone (see CloudantBase).
/// The indexes an entity's model declares, as the store's index definitions.
extension EntityDescription {
    /// The store indexes the entity needs: the one on `CDTISEntityName` the Core Data bridge created (shared
    /// by every entity), and one per model index, narrowed to this entity.
    public var indexDefinitions: [IndexDefinition] {
        [Self.entityNameIndex]
            + indexes.map {
                IndexDefinition(
                    name: $0.name, fields: $0.fields.map { .ascending($0) },
                    partialFilterSelector: [IncrementalStore.entityNameKey: .string(name)])
            }
    }

    /// The index on `CDTISEntityName` every model store has.
    public static let entityNameIndex = IndexDefinition(
        name: IncrementalStore.entityNameKey, fields: [.ascending(IncrementalStore.entityNameKey)])
}
