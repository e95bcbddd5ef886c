internal import CloudantCore
public import CloudantModelSchema
public import CloudantStore

extension ModelStore {
    /// Every document of `store` that does not follow `version` of a model, with the reason: the engine of
    /// `cloudant model check`. Design documents are skipped; `CDTISMetaData` must carry the version's
    /// hashes; relationships must name live objects of their destination entity.
    ///
    /// ```swift
    /// for violation in try await ModelStore.check(store, against: model.current) { print(violation) }
    /// ```
    /// - Throws: `CloudantError` when the store cannot be read.
    public static func check(_ store: DocumentStore, against version: ModelVersion) async throws -> [SchemaViolation] {
        let rows = try await store.allDocs(AllDocsOptions(includeDocs: true)).rows
        var documents: [String: JSONObject] = [:]
        var order: [String] = []
        for row in rows {
            guard let document = row["doc"]?.objectValue, let id = document["_id"]?.stringValue else { continue }
            documents[id] = document
            order.append(id)
        }
        let check = DocumentCheck(version: version)
        var found: [SchemaViolation] = []
        for id in order {
            guard let document = documents[id], !id.hasPrefix("_design/") else { continue }
            if id == IncrementalStore.metadataDocumentID {
                do {
                    let metadata = try IncrementalStoreMetadata(document: document)
                    if metadata.versionHashes != VersionHashes.hashes(of: version) {
                        found.append(
                            SchemaViolation(
                                documentID: id, entity: nil, property: "metaData.NSStoreModelVersionHashes",
                                problem: .malformedMetadata("metaData.NSStoreModelVersionHashes (they are another model version's)")))
                    }
                } catch let error as CloudantError {
                    if let violation = error.schemaViolation { found.append(violation) }
                }
                continue
            }
            let problems = check.violations(of: document)
            found += problems
            guard problems.isEmpty, let entity = document[IncrementalStore.entityNameKey]?.stringValue.flatMap(version.entity(named:)) else {
                continue
            }
            for (relationship, targets) in ObjectGraph.targets(of: document, entity: entity, id: id) {
                for target in targets {
                    let targetEntity = documents[target]?[IncrementalStore.entityNameKey]?.stringValue
                    if targetEntity == nil || targetEntity != relationship.destination {
                        found.append(
                            SchemaViolation(documentID: id, entity: entity.name, property: relationship.name, problem: .danglingRelation(target)))
                    }
                }
            }
        }
        return found
    }
}
