internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// A query over quantity samples that ``HealthPlugin/quantityProjection`` answers in place of a JSON index:
/// one type identifier, optionally bounded start dates, sorted by start date either way, skipped and limited.
///
/// Quantity samples are most of a health store, and the projection already keeps them ordered by type and
/// start, so ``HealthPlugin/sampleIndex`` leaves them out rather than keep a second, larger copy of the same
/// order. The answer is the one the index gave: rows in start order with ties in `_id` order (byte order,
/// reversed when descending, as a descending index scan reverses both), then skip and limit. Start dates
/// compare as instants; a query's date must be written as the store writes dates (UTC, milliseconds), where
/// instant order and CouchDB collation of the text agree. Any other query runs as Mango.
struct ProjectedQuantityQuery: Sendable {
    private typealias Column = HealthPlugin.QuantityColumn

    var typeIdentifier: String
    var startConditions: [ProjectionCondition] = []
    /// Whether the answer is in start order (else in id order, as Mango answered without a usable index).
    var inStartOrder = true
    var descending = false
    var skip = 0
    var limit: Int?

    /// The query's shape, or `nil` when `query` asks for anything the projection cannot answer exactly:
    /// other fields or operators, `$or`, raw selectors, a projection of fields, an index of its own, or no
    /// single type identifier.
    init?(_ query: CollectionQuery) {
        guard query.kind == HealthSampleType.quantity.kindName, query.rawSelectors.isEmpty, query.fields == nil,
            query.indexHint == nil, query.skipCount >= 0, (query.limitCount ?? 0) >= 0
        else { return nil }
        var typeIdentifier: String?
        for condition in Self.conjuncts(of: query.components.map(\.json)) {
            guard let (field, comparison, value) = condition else { return nil }
            switch (field, comparison) {
            case (query.kindField, "$eq") where value.stringValue == query.kind:
                continue
            case ("typeIdentifier", "$eq"):
                guard let text = value.stringValue, typeIdentifier == nil || typeIdentifier == text else { return nil }
                typeIdentifier = text
            case ("startDate", _):
                guard let bound = Self.startCondition(comparison, value) else { return nil }
                startConditions.append(bound)
            default:
                return nil
            }
        }
        guard let typeIdentifier else { return nil }
        self.typeIdentifier = typeIdentifier
        let sortable: Set = [query.kindField, "typeIdentifier", "startDate"]
        guard query.sortFields.allSatisfy({ sortable.contains($0.field) }),
            Set(query.sortFields.map(\.descending)).count <= 1
        else { return nil }
        // The index served a query only when the selector or the sort required a start date; otherwise
        // Mango read `_all_docs`, in id order, and a sort by the constant kind or type kept that order.
        inStartOrder = !startConditions.isEmpty || query.sortFields.contains { $0.field == "startDate" }
        guard inStartOrder || query.sortFields.isEmpty else { return nil }
        descending = query.sortFields.first?.descending ?? false
        skip = query.skipCount
        limit = query.limitCount
    }

    /// The samples of the answer, in order, read in one read transaction. Reads the rows up to `skip + limit`
    /// in start order and every row sharing the last one's start (ties are ordered by id, which the
    /// projection does not keep in order), so a page never cuts a group of ties at the wrong place.
    func samples(in store: DocumentStore) async throws -> [QuantitySample] {
        let wanted = limit.map { skip + $0 }
        guard wanted != 0 else { return [] }
        var samples: [QuantitySample]
        if inStartOrder {
            samples = try await store.entities(
                QuantitySample.self, projected: projectionQuery(limit: wanted), completingTiesOf: Column.start.name)
            samples.sort { a, b in
                guard a.startDate == b.startDate else { return descending ? a.startDate > b.startDate : a.startDate < b.startDate }
                return descending ? Self.idOrder(b.id, a.id) : Self.idOrder(a.id, b.id)
            }
        } else {
            samples = try await store.entities(QuantitySample.self, projected: projectionQuery(limit: nil))
            samples.sort { Self.idOrder($0.id, $1.id) }
        }
        let kept = samples.dropFirst(skip)
        return limit.map { Array(kept.prefix($0)) } ?? Array(kept)
    }

    private func projectionQuery(limit: Int?) -> ProjectionQuery {
        ProjectionQuery(
            projection: HealthPlugin.quantityProjection.name,
            where: [.init(Column.typeIdentifier.name, .equal, .text(typeIdentifier))] + startConditions,
            descending: descending, limit: limit)
    }

    /// `_id` order as the index kept it: SQLite's binary order of the UTF-8 bytes.
    private static func idOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// The leaves of nested `$and`s, each as (field, operator, value); `nil` for a leaf of any other shape.
    private static func conjuncts(of selectors: [JSONValue]) -> [(String, String, JSONValue)?] {
        selectors.flatMap { selector -> [(String, String, JSONValue)?] in
            guard let object = selector.objectValue, object.members.count == 1, let (field, test) = object.members.first
            else { return [nil] }
            if field == "$and", let parts = test.arrayValue { return conjuncts(of: parts) }
            guard !field.hasPrefix("$"), let comparison = test.objectValue, comparison.members.count == 1,
                let (name, value) = comparison.members.first
            else { return [nil] }
            return [(field, name, value)]
        }
    }

    /// A start-date comparison as a projection condition, when its operand is a date written as the store
    /// writes them (so comparing instants gives what collating the text gives).
    private static func startCondition(_ comparison: String, _ value: JSONValue) -> ProjectionCondition? {
        guard let text = value.stringValue, let date = ISO8601Timestamp.date(from: text),
            ISO8601Timestamp.string(from: date) == text
        else { return nil }
        let operators: [String: ProjectionCondition.Comparison] = [
            "$eq": .equal, "$lt": .less, "$lte": .lessOrEqual, "$gt": .greater, "$gte": .greaterOrEqual,
        ]
        guard let projected = operators[comparison] else { return nil }
        return ProjectionCondition(Column.start.name, projected, .date(date))
    }
}
