public import Foundation
public import CloudantCore
internal import CloudantStore

extension CareStore {
    /// The versions of kind `type` that match `query`, as CareKit's `fetchX(query:)` returns them.
    ///
    /// Matching runs as Cloudant Queries on the care indexes (one; for outcomes by date one two-sided range per
    /// event length class, see ``findRequests(_:query:)``); the version-in-effect rule, the order, the
    /// offset and the limit then apply to the matches (the limit counts versions in effect, so it cannot be
    /// given to the query engine, which would count every matching version).
    ///
    /// ```swift
    /// let plans = try await care.fetch(CarePlan.self, query: CareQuery(for: today, calendar: calendar))
    /// ```
    /// - Throws: `CloudantError.Code.invalidInput` for relation fields the kind does not have,
    ///   or a stored version that no longer decodes.
    public func fetch<Entity: CareStorable>(_ type: Entity.Type, query: CareQuery = CareQuery()) async throws
        -> [Entity]
    {
        guard let selectors = try await selectors(for: type, query: query) else { return [] }
        var candidates: [JSONObject] = []
        for conditions in selectors {
            candidates += try await versionDocuments(kind: Entity.careKindName, where: conditions)
        }
        // The versions to return, each with the document it was read from (the sort reads the document).
        let selected: [(document: JSONObject, version: Entity)]
        if Entity.self == Outcome.self, query.dateInterval != nil || query.createdDateInterval != nil {
            // An outcome's newest live version only (CareKit #565: never two versions of one outcome for a day).
            // Its later versions and tombstones record the same event and keep its createdDate, so they are in
            // the same event window and creation range: the indexed ranges find them all, instead of loading
            // every version of every outcome by id.
            selected = try Self.newestLive(type, in: candidates)
        } else {
            var seenIDs = Set<String>()
            let ids = candidates.compactMap { $0["id"]?.stringValue }.filter { seenIDs.insert($0).inserted }
            let history = try await self.history(type, ids: ids)
            let keep = Set(history.inEffect(during: query.dateInterval).map(\.uuid))
            selected = candidates.compactMap { document in
                guard let uuid = document["uuid"]?.stringValue.flatMap(UUIDText.uuid), keep.contains(uuid),
                    let version = history.version(uuid: uuid)
                else { return nil }
                return (document, version)
            }
        }
        let ordered = Self.sorted(selected, by: query.sort, document: \.document)
        return ordered.dropFirst(query.offset).prefix(query.limit ?? Int.max).map(\.version)
    }

    /// The versions among `documents` that are live (not tombstones) and that no version among them replaces
    /// (names as previous, or is named as next): what a ``VersionHistory`` of them keeps as `deletedDate == nil
    /// && next(of:).isEmpty`, without building one (a day of outcomes is thousands of versions, nearly all
    /// alone).
    static func newestLive<Entity: CareStorable>(_ type: Entity.Type, in documents: [JSONObject]) throws
        -> [(document: JSONObject, version: Entity)]
    {
        let versions = try documents.map { try CareDocument.entity(type, from: $0) }
        var present = Set<UUID>(minimumCapacity: versions.count)
        var replaced = Set<UUID>()
        for version in versions {
            present.insert(version.uuid)
            replaced.formUnion(version.previousVersionUUIDs)
        }
        return zip(documents, versions).filter { _, version in
            version.deletedDate == nil && !replaced.contains(version.uuid)
                && !version.nextVersionUUIDs.contains(where: present.contains)
        }
    }

    /// The versions in effect at `date` (every kind's `list`): one per object unless versions are concurrent.
    public func fetchInEffect<Entity: CareStorable>(_ type: Entity.Type, at date: Date) async throws -> [Entity] {
        let history = try await allVersions(type)
        return history.inEffect(at: date)
    }

    /// The Cloudant Queries ``fetch(_:query:)`` runs for `query` (for `store.explain`): one, except for
    /// outcomes by date, which take one two-sided range per event length class; empty when a relation matches
    /// nothing and no query runs.
    ///
    /// ```swift
    /// for request in try await care.findRequests(Outcome.self, query: CareQuery(for: today, calendar: calendar)) {
    ///     print(try await care.store.explain(request)["index"]?["name"]?.stringValue ?? "all_docs")
    /// }
    /// ```
    /// - Throws: `CloudantError.Code.invalidInput` for relation fields the kind does not have.
    public func findRequests<Entity: CareStorable>(_ type: Entity.Type, query: CareQuery) async throws -> [FindRequest] {
        guard let selectors = try await selectors(for: type, query: query) else { return [] }
        return try selectors.map { conditions in
            var selector: JSONObject = [CareDocument.kindField: .string(Entity.careKindName)]
            for (key, value) in conditions.members { selector[key] = value }
            return try Self.request(selector)
        }
    }

    /// The Mango conditions for `query` on kind `type` (several for outcomes by date: one per event length
    /// class, see ``EventSpan``), or `nil` when a relation matches nothing.
    func selectors<Entity: CareStorable>(for type: Entity.Type, query: CareQuery) async throws -> [JSONObject]? {
        var conditions: JSONObject = ["deletedDate": ["$exists": false]]
        var clauses: [JSONValue] = []
        if let ids = query.ids { conditions["id"] = Self.oneOf(ids.map { .string($0) }) }
        if let uuids = query.uuids { conditions["uuid"] = Self.oneOf(uuids.map { .string($0.uuidString) }) }
        if let remoteIDs = query.remoteIDs { clauses.append(Self.optionalOneOf("remoteID", remoteIDs)) }
        if let groups = query.groupIdentifiers { clauses.append(Self.optionalOneOf("groupIdentifier", groups)) }
        if let tags = query.tags { conditions["tags"] = ["$elemMatch": ["$in": .array(tags.map { .string($0) })]] }
        if let relation = try await relatedUUIDs(for: type, query: query) {
            guard !relation.uuids.isEmpty else { return nil }
            conditions[relation.field] = Self.oneOf(relation.uuids.map { .string($0.uuidString) })
        }
        if let created = query.createdDateInterval {
            // Both ends included, as DateInterval.contains: CareKit's day queries end at 23:59:59.
            conditions["createdDate"] = [
                "$gte": try JSONValue(encoding: created.start), "$lte": try JSONValue(encoding: created.end),
            ]
        }
        if !clauses.isEmpty { conditions["$and"] = .array(clauses) }
        guard let interval = query.dateInterval else {
            conditions["effectiveDate"] = ["$exists": true]
            // By creation date, an outcome's newest live version is kept (see fetch): its tombstone is needed.
            if Entity.self == Outcome.self, query.createdDateInterval != nil { conditions.removeValue(forKey: "deletedDate") }
            return [conditions]
        }
        guard Entity.self == Outcome.self else {
            conditions["effectiveDate"] = ["$lt": try JSONValue(encoding: interval.end)]
            return [conditions]
        }
        // Tombstones and later versions of a matching outcome are needed too, to find its newest live version.
        conditions.removeValue(forKey: "deletedDate")
        return try EventSpan.conditions(overlapping: interval).map { span in
            var bySpan = conditions
            for (key, value) in span.members { bySpan[key] = value }
            return bySpan
        }
    }

    /// The uuids the kind's relation must point at, or `nil` when the query names no relation.
    private func relatedUUIDs<Entity: CareStorable>(for type: Entity.Type, query: CareQuery) async throws
        -> (field: String, uuids: [UUID])?
    {
        let criteria: [(field: String, ids: [String]?, uuids: [UUID]?, remoteIDs: [String]?)] = [
            ("patientUUID", query.patientIDs, query.patientUUIDs, query.patientRemoteIDs),
            ("carePlanUUID", query.carePlanIDs, query.carePlanUUIDs, query.carePlanRemoteIDs),
            ("taskUUID", query.taskIDs, query.taskUUIDs, query.taskRemoteIDs),
        ]
        var result: Set<UUID>?
        var field: String?
        for criterion in criteria where criterion.ids != nil || criterion.uuids != nil || criterion.remoteIDs != nil {
            guard let relation = Entity.careRelation, relation.field == criterion.field else {
                throw CloudantError(
                    .invalidInput, "\(Entity.careKindName) has no \(criterion.field) relation; remove that query field.",
                    context: .init(kind: Entity.careKindName, field: criterion.field))
            }
            field = relation.field
            if let uuids = criterion.uuids { result = (result ?? Set(uuids)).intersection(uuids) }
            for (member, values) in [("id", criterion.ids), ("remoteID", criterion.remoteIDs)] {
                guard let values else { continue }
                var found = Set<UUID>()
                for kind in relation.kindNames {
                    let documents = try await versionDocuments(
                        kind: kind, where: [member: Self.oneOf(values.map { .string($0) })])
                    found.formUnion(documents.compactMap { $0["uuid"]?.stringValue.flatMap(UUID.init(uuidString:)) })
                }
                result = (result ?? found).intersection(found)
            }
        }
        guard let field, let result else { return nil }
        return (field, result.sorted { $0.uuidString < $1.uuidString })
    }

    /// `$eq` for one value (an index range), `$in` for several.
    static func oneOf(_ values: [JSONValue]) -> JSONValue {
        values.count == 1 ? ["$eq": values[0]] : ["$in": .array(values)]
    }

    private static func optionalOneOf(_ field: String, _ values: [String?]) -> JSONValue {
        var branches: [JSONValue] = []
        let present = values.compactMap { $0 }
        if !present.isEmpty {
            let anyOf: JSONValue = ["$in": .array(present.map { .string($0) })]
            branches.append(.object(JSONObject([(field, anyOf)])))
        }
        if values.contains(nil) {
            let missing: JSONValue = ["$exists": false]
            branches.append(.object(JSONObject([(field, missing)])))
        }
        return ["$or": .array(branches)]
    }

    /// Orders elements by their documents' values for the query's keys, then CareKit's default (`createdDate`
    /// descending), then `_id`. Each document's keys are read once, and positions are sorted rather than the
    /// elements, so a comparison neither looks members up nor copies an element.
    static func sorted<Element>(_ elements: [Element], by sort: [CareSort], document: (Element) -> JSONObject) -> [Element] {
        let keys = sort + [CareSort(.createdDate, ascending: false)]
        var values: [[String?]] = Array(repeating: [], count: keys.count)
        var ids: [String] = []
        ids.reserveCapacity(elements.count)
        for position in values.indices { values[position].reserveCapacity(elements.count) }
        for element in elements {
            let document = document(element)
            for (position, key) in keys.enumerated() { values[position].append(value(key.field.path, in: document)) }
            ids.append(document["_id"]?.stringValue ?? "")
        }
        let order = elements.indices.sorted { left, right in
            for (position, key) in keys.enumerated() {
                let a = values[position][left]
                let b = values[position][right]
                if a == b { continue }
                guard let a else { return false }
                guard let b else { return true }
                return key.ascending ? a < b : a > b
            }
            return ids[left] < ids[right]
        }
        return order.map { elements[$0] }
    }

    private static func value(_ path: [String], in document: JSONObject) -> String? {
        var current: JSONValue? = .object(document)
        for key in path { current = current?[key] }
        return current?.stringValue
    }
}
