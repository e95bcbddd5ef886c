internal import Foundation
internal import CloudantCore
internal import CloudantStore

extension CareStore {
    /// Every stored version of the objects of kind `type` with these ids (tombstones included), with version
    /// links rebuilt in both directions.
    ///
    /// ```swift
    /// let meds = try await care.history(CareTask.self, ids: ["meds"])
    /// meds.tips(id: "meds")   // more than one while versions are concurrent
    /// ```
    /// - Throws: `CloudantError.Code.invalidInput` naming a stored version that no longer decodes.
    public func history<Entity: CareStorable>(_ type: Entity.Type, ids: [String]) async throws
        -> VersionHistory<Entity>
    {
        let documents = try await versionDocuments(kind: Entity.careKindName, field: "id", values: ids.map { .string($0) })
        return try VersionHistory(documents.map { try CareDocument.entity(type, from: $0) })
    }

    /// Every stored version of kind `type`.
    public func allVersions<Entity: CareStorable>(_ type: Entity.Type) async throws -> VersionHistory<Entity> {
        let documents = try await versionDocuments(kind: Entity.careKindName, where: ["effectiveDate": ["$exists": true]])
        return try VersionHistory(documents.map { try CareDocument.entity(type, from: $0) })
    }

    /// The version with this uuid, of any of `kinds`.
    func versionDocument(uuid: UUID, kinds: [String]) async throws -> JSONObject? {
        for kind in kinds {
            let found = try await versionDocuments(kind: kind, where: ["uuid": .string(uuid.uuidString)])
            if let first = found.first { return first }
        }
        return nil
    }

    /// The version documents of `kind` whose `field` is one of `values`. `$in` is not an index range, so a
    /// few values are looked up one `$eq` range each; many values scan the kind's range once.
    func versionDocuments(kind: String, field: String, values: [JSONValue]) async throws -> [JSONObject] {
        guard !values.isEmpty else { return [] }
        guard values.count <= 32 else { return try await versionDocuments(kind: kind, where: [field: ["$in": .array(values)]]) }
        var documents: [JSONObject] = []
        var seen = Set<JSONValue>()
        for value in values where seen.insert(value).inserted {
            documents += try await versionDocuments(kind: kind, where: [field: ["$eq": value]])
        }
        return documents
    }

    /// The version documents of `kind` matching `conditions` (a Mango object ANDed with the kind), through
    /// the care indexes.
    func versionDocuments(kind: String, where conditions: JSONObject) async throws -> [JSONObject] {
        var selector: JSONObject = [CareDocument.kindField: .string(kind)]
        for (key, value) in conditions.members { selector[key] = value }
        return try await store.find(Self.request(selector)).docs
    }

    /// A find request for `selector` without a limit.
    ///
    /// Nested `$and`s are flattened into one: the parser keeps `{"startDate": {"$gte": a, "$lt": b}}` as an
    /// `$and` inside the top-level one, and the planner takes key ranges from top-level conditions only, so
    /// without this a two-sided range would scan its whole index column.
    ///
    /// A selector on the outcome event key names its index: the planner counts indexed fields, and a relation
    /// condition (`taskUUID`) would otherwise win with an index that reads every version of the task.
    static func request(_ selector: JSONObject) throws -> FindRequest {
        let parsed = try MangoSelector(.object(selector))
        let eventKeyIndex = [CareIndexes.designDocument, CareIndexes.byEventKey.name]
        return FindRequest(
            selector: MangoSelector(root: flattened(parsed.root)), limit: Int.max,
            useIndex: selector[EventSpan.field] == nil ? nil : eventKeyIndex)
    }

    private static func flattened(_ node: MangoSelector.Node) -> MangoSelector.Node {
        guard case .and(let children) = node else { return node }
        return .and(
            children.flatMap { child -> [MangoSelector.Node] in
                if case .and(let grandchildren) = flattened(child) { return grandchildren }
                return [child]
            })
    }
}
