public import CloudantCore
public import CloudantStore
public import Dispatch

/// OTFCloudantStore's query builder, with every spelling the original had, over a `CollectionQuery`.
///
/// Make one with ``OTFCloudantStore/collection(_:fields:)-(String,_)`` (or `collection(name:)`), narrow it with
/// `where`, order and page it, then run it with `get`. Results and failures arrive as the original's
/// `Result<[Entity], OTFCloudantError>`.
///
/// ```swift
/// store.collection(name: "OCKContact")
///     .where(.simpleComponent("title", .equal, "Family Practice Doctor"), .and,
///            .simpleComponent("effectiveDate", .greaterThan, "2020-11-27T23:00:00Z"))
///     .sort(ascending: "familyName")
///     .get { (result: Result<[Contact], OTFCloudantError>) in … }
/// ```
///
/// What changed from the original, on purpose: every `where` adds a condition (the original replaced an
/// earlier one on the same field); `where(_:notEqualTo:)` sends `$ne` (the original sent `$neq`, which
/// matched nothing); sorting works on any field and in mixed directions (the original rejected every sort);
/// there is no hidden limit of 30; a malformed condition fails with `OTFCloudantError.invalidValue(reason:)`
/// instead of returning `[]`.
public struct OTFCloudantQuery: Sendable {
    /// The store the query runs against.
    public let store: OTFCloudantStore
    /// The query in the native API.
    public private(set) var collectionQuery: CollectionQuery

    /// Creates a query over `kind`'s documents; ``OTFCloudantStore/collection(_:fields:)-(String,_)`` is the usual way in.
    public init(store: OTFCloudantStore, kind: String, fields: [String]? = nil) {
        self.store = store
        collectionQuery = CollectionQuery(store: store.documentStore, kind: kind, fields: fields)
    }

    /// Wraps a native query (health queries start from one).
    public init(store: OTFCloudantStore, collectionQuery: CollectionQuery) {
        self.store = store
        self.collectionQuery = collectionQuery
    }

    private func with(_ change: (CollectionQuery) -> CollectionQuery) -> OTFCloudantQuery {
        var copy = self
        copy.collectionQuery = change(collectionQuery)
        return copy
    }

    // MARK: Conditions

    /// Adds a condition (a simple, combined or complex component); every condition must match.
    public func `where`(_ component: OTFCloudantQueryComponent) -> OTFCloudantQuery {
        with { $0.where(component) }
    }

    /// The original's `where(query:)`, for each of its component types.
    public func `where`(query component: OTFCloudantQueryComponent) -> OTFCloudantQuery {
        self.where(component)
    }

    /// The short form: two conditions joined by `selector`.
    ///
    /// ```swift
    /// query.where(.simpleComponent("title", .equal, "Nurse"), .and, .simpleComponent("age", .lessThan, 30))
    /// ```
    public func `where`(
        _ lhs: OTFCloudantQueryComponent, _ selector: OTFCloudantCombinationSelector, _ rhs: OTFCloudantQueryComponent
    ) -> OTFCloudantQuery {
        with { $0.where(lhs, selector, rhs) }
    }

    /// `propertyName` equals `value`.
    public func `where`(propertyName: String, value: some QueryValueConvertible) -> OTFCloudantQuery {
        compare(propertyName, .equal, value)
    }

    /// `field` equals `value`.
    public func `where`(_ field: String, isEqualTo value: some QueryValueConvertible) -> OTFCloudantQuery {
        compare(field, .equal, value)
    }

    /// `field` is not equal to `value` (`$ne`).
    public func `where`(_ field: String, notEqualTo value: some QueryValueConvertible) -> OTFCloudantQuery {
        compare(field, .notEqual, value)
    }

    /// `field` sorts before `value`.
    public func `where`(_ field: String, isLessThan value: some QueryValueConvertible) -> OTFCloudantQuery {
        compare(field, .lessThan, value)
    }

    /// `field` sorts before or equal to `value` (the original's spelling).
    public func `where`(_ field: String, isLessThanOrEquaTo value: some QueryValueConvertible) -> OTFCloudantQuery {
        compare(field, .lessThanOrEqual, value)
    }

    /// `field` sorts after `value` (the original's spelling).
    public func `where`(_ field: String, isGreeterThan value: some QueryValueConvertible) -> OTFCloudantQuery {
        compare(field, .greaterThan, value)
    }

    /// `field` sorts after or equal to `value` (the original's spelling).
    public func `where`(_ field: String, isGreeterThanOrEqualTo value: some QueryValueConvertible) -> OTFCloudantQuery {
        compare(field, .greaterThanOrEqual, value)
    }

    /// `field` equals one of `values`.
    public func `where`(field: String, in values: [some QueryValueConvertible]) -> OTFCloudantQuery {
        compare(field, .in, values)
    }

    /// `field` equals none of `values`.
    public func `where`(field: String, notIn values: [some QueryValueConvertible]) -> OTFCloudantQuery {
        compare(field, .notIn, values)
    }

    /// `field` is present (`true`) or absent (`false`).
    public func `where`(field: String, exists: Bool) -> OTFCloudantQuery {
        compare(field, .exists, exists)
    }

    /// `field` is an array of `size` elements.
    public func `where`(field: String, hasSize size: Int) -> OTFCloudantQuery {
        compare(field, .size, size)
    }

    /// `field` divided by `divisor` leaves `remainder` (`$mod`).
    /// - Throws: `OTFCloudantError.invalidValue(reason:)` for a zero divisor, as the original did.
    public func `where`(field: String, mode divisor: Int, equal remainder: Int) throws(OTFCloudantError) -> OTFCloudantQuery {
        guard divisor != 0 else {
            throw .invalidValue(reason: "A $mod divisor must not be zero (field '\(field)').")
        }
        return compare(field, .mod, [divisor, remainder])
    }

    /// Either raw Mango condition matches (`$or`).
    public func `where`(firstCondition: JSONObject, or secondCondition: JSONObject) -> OTFCloudantQuery {
        raw(.or, firstCondition, secondCondition)
    }

    /// Both raw Mango conditions match (`$and`).
    public func `where`(firstCondition: JSONObject, and secondCondition: JSONObject) -> OTFCloudantQuery {
        raw(.and, firstCondition, secondCondition)
    }

    private func compare(_ field: String, _ comparison: ComparisonOperator, _ value: some QueryValueConvertible)
        -> OTFCloudantQuery
    {
        self.where(.simpleComponent(field, comparison, value))
    }

    private func raw(_ selector: CombinationSelector, _ first: JSONObject, _ second: JSONObject) -> OTFCloudantQuery {
        with { $0.where(rawSelector: .object([selector.mangoOperator: .array([.object(first), .object(second)])])) }
    }

    // MARK: Order and pages

    /// Sorts by `field`, smallest first, after any earlier sort fields.
    public func sort(ascending field: String) -> OTFCloudantQuery { with { $0.sort(ascending: field) } }

    /// Sorts by `field`, largest first, after any earlier sort fields.
    public func sort(descending field: String) -> OTFCloudantQuery { with { $0.sort(descending: field) } }

    /// The original's `sort(ascendingBy:)`.
    public func sort(ascendingBy field: String) -> OTFCloudantQuery { sort(ascending: field) }

    /// The original's `sort(descendingBy:)`.
    public func sort(descendingBy field: String) -> OTFCloudantQuery { sort(descending: field) }

    /// The original's `ordered(by:ascending:)`.
    public func ordered(by field: String, ascending: Bool = true) -> OTFCloudantQuery {
        ascending ? sort(ascending: field) : sort(descending: field)
    }

    /// At most `count` results; without it every match comes back (the original stopped at 30).
    public func limit(_ count: Int) -> OTFCloudantQuery { with { $0.limit(count) } }

    /// The original's `limit(limit:)`.
    public func limit(limit count: Int) -> OTFCloudantQuery { self.limit(count) }

    /// Skips the first `count` matches.
    public func skip(_ count: Int) -> OTFCloudantQuery { with { $0.skip(count) } }

    /// The original's `skip(skip:)`.
    public func skip(skip count: Int) -> OTFCloudantQuery { self.skip(count) }

    // MARK: Running

    /// Runs the query and passes the entities, decoded as `Entity` (inferred from `completion`), to
    /// `completion` exactly once, on `callbackQueue`.
    public func get<Entity: CloudantEntity>(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[Entity], OTFCloudantError>) -> Void
    ) where Entity.ID: CustomStringConvertible {
        let query = collectionQuery
        store.deliver(.fetch, on: callbackQueue, to: completion) { try await query.get(Entity.self) }
    }

    /// Runs the query and passes the matching documents (raw JSON) to `completion`.
    public func getDocuments(
        callbackQueue: DispatchQueue = .main,
        completion: @escaping @Sendable (Result<[JSONObject], OTFCloudantError>) -> Void
    ) {
        let query = collectionQuery
        store.deliver(.fetch, on: callbackQueue, to: completion) { try await query.get() }
    }

    /// Runs the query and decodes the matches as `type`.
    /// - Throws: `OTFCloudantError.invalidValue(reason:)` for a malformed query (CouchDB's `bad_arg`,
    ///   `invalid_operator`) or a type stored under another kind; `OTFCloudantError.fetchFailed(reason:)`
    ///   naming a document that does not decode.
    public func get<Entity: CloudantEntity>(_ type: Entity.Type) async throws(OTFCloudantError) -> [Entity]
    where Entity.ID: CustomStringConvertible {
        let query = collectionQuery
        return try await store.perform(.fetch) { try await query.get(type) }
    }

    /// Runs the query and returns the matching documents.
    public func getDocuments() async throws(OTFCloudantError) -> [JSONObject] {
        let query = collectionQuery
        return try await store.perform(.fetch) { try await query.get() }
    }
}

extension OTFCloudantStore {
    /// Starts a query over the documents whose `entityType` is `className`, as the original's
    /// `collection(className, fields:)`.
    public func collection(_ className: String, fields: [String]? = nil) -> OTFCloudantQuery {
        OTFCloudantQuery(store: self, kind: className, fields: fields)
    }

    /// The original's short-query entry point.
    public func collection(name: String) -> OTFCloudantQuery {
        collection(name)
    }

    /// The original's labelled entry point.
    public func collection(className: String, fields: [String]? = nil) -> OTFCloudantQuery {
        collection(className, fields: fields)
    }

    /// Starts a query over the entities of `type` (the kind its documents carry).
    public func collection<Entity: CloudantEntity>(_ type: Entity.Type, fields: [String]? = nil) -> OTFCloudantQuery {
        let kind = (try? documentStore.options.entityKind(for: type).name) ?? String(describing: type)
        return collection(kind, fields: fields)
    }
}
