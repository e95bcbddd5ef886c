public import CloudantCore

/// A query over one entity kind, built by chaining: OTFCloudantStore's `OTFCloudantQuery`, as a thin layer
/// over `FindRequest` and ``DocumentStore/find(_:limits:visibility:)``.
///
/// Make one with ``DocumentStore/collection(_:fields:)-(String,_)``, narrow it with `where`, order and page it, then
/// run it with `get`. Each call returns a new query; the original is unchanged, so a query can be kept and
/// reused.
///
/// ```swift
/// let contacts = try await store.collection("OCKContact")
///     .where(.simpleComponent("title", .equal, "Family Practice Doctor"), .and,
///            .simpleComponent("effectiveDate", .greaterThan, "2020-11-27T23:00:00Z"))
///     .sort(ascending: "effectiveDate")
///     .limit(10)
///     .get()
/// ```
///
/// What changed from OTFCloudantStore:
/// - Every `where` adds a condition (they are all and-ed); the original replaced an earlier condition on
///   the same field.
/// - Sorting works on any field, with or without an index; documents lacking a sort field are left out,
///   as a CouchDB index would leave them out. The original rejected every sort and returned `[]`.
/// - There is no hidden limit (the original stopped at 30); call ``limit(_:)`` to page.
/// - A malformed condition throws a `CloudantError` from `get` instead of returning `[]`.
public struct CollectionQuery: Sendable {
    /// The store the query runs against.
    public let store: DocumentStore
    /// The kind name documents must carry in their ``kindField`` member.
    public let kind: String
    /// The member naming the kind: `entityType`, or `CDTISEntityName` for a kind in the Core Data bridge's
    /// layout (see `EntityDocumentFormat`).
    public let kindField: String
    /// The members to return (Mango `fields`); `nil` returns whole documents.
    public private(set) var fields: [String]?
    /// The conditions, all of which must match, in the order they were added.
    public private(set) var components: [QueryComponent] = []
    /// Mango selectors given as JSON, which must match too (after ``components``).
    public private(set) var rawSelectors: [JSONValue] = []
    /// The sort fields, most significant first.
    public private(set) var sortFields: [(field: String, descending: Bool)] = []
    /// At most this many documents; `nil` returns every match.
    public private(set) var limitCount: Int?
    /// Skip this many matches first.
    public private(set) var skipCount: Int = 0
    /// The index the query asks for (Mango's `use_index`): a design document, and optionally the index's
    /// name in it; `nil` lets the planner choose.
    public private(set) var indexHint: [String]?

    /// Creates a query over the documents of `kind`; ``DocumentStore/collection(_:fields:)-(String,_)`` is the usual
    /// way in.
    public init(store: DocumentStore, kind: String, fields: [String]? = nil) {
        self.store = store
        self.kind = kind
        kindField = store.options.registry.kind(named: kind)?.format.kindField ?? EntityField.kind
        self.fields = fields
    }

    /// Adds a condition; every condition must match.
    ///
    /// ```swift
    /// let adults = store.collection("Patient").where(.simpleComponent("age", .greaterThanOrEqual, 18))
    /// ```
    public func `where`(_ component: QueryComponent) -> CollectionQuery {
        var copy = self
        copy.components.append(component)
        return copy
    }

    /// Adds two conditions joined by `selector`: the short form
    /// `where(.simpleComponent(…), .and, .simpleComponent(…))`.
    public func `where`(
        _ lhs: QueryComponent, _ selector: CombinationSelector, _ rhs: QueryComponent
    ) -> CollectionQuery {
        self.where(.combinedComponent(lhs, selector, rhs))
    }

    /// Adds the condition that `field` equals `value`.
    ///
    /// ```swift
    /// let doctors = store.collection("OCKContact").where(field: "title", value: "Family Practice Doctor")
    /// ```
    public func `where`(field: String, value: some QueryValueConvertible) -> CollectionQuery {
        self.where(.simpleComponent(field, .equal, value))
    }

    /// Adds a Mango selector written as JSON; it must match too. The store checks it when the query runs.
    ///
    /// ```swift
    /// let recent = store.collection("Note").where(rawSelector: ["$or": [["pinned": true], ["stars": ["$gte": 4]]]])
    /// ```
    public func `where`(rawSelector: JSONValue) -> CollectionQuery {
        var copy = self
        copy.rawSelectors.append(rawSelector)
        return copy
    }

    /// Sorts by `field`, smallest first by CouchDB collation, after any sort fields added before.
    public func sort(ascending field: String) -> CollectionQuery {
        var copy = self
        copy.sortFields.append((field, false))
        return copy
    }

    /// Sorts by `field`, largest first by CouchDB collation, after any sort fields added before.
    public func sort(descending field: String) -> CollectionQuery {
        var copy = self
        copy.sortFields.append((field, true))
        return copy
    }

    /// Returns at most `count` documents (after ``skip(_:)``); a negative count fails when the query runs.
    public func limit(_ count: Int) -> CollectionQuery {
        var copy = self
        copy.limitCount = count
        return copy
    }

    /// Skips the first `count` matches; a negative count fails when the query runs.
    public func skip(_ count: Int) -> CollectionQuery {
        var copy = self
        copy.skipCount = count
        return copy
    }

    /// Asks for an index, as Mango's `use_index` does: the only way a partial index is used. When the index
    /// cannot answer the query (it does not exist, or its fields do not suit the selector and sort), the
    /// query still runs on the index the planner chooses, and its result carries CouchDB's warning.
    ///
    /// ```swift
    /// let open = try await store.collection("Task").where(field: "done", value: false)
    ///     .useIndex(designDocument: "tasks", name: "open-tasks-by-due").get()
    /// ```
    /// - Parameters:
    ///   - designDocument: The index's design document, with or without `_design/`.
    ///   - name: The index's name; `nil` takes any index of the design document that suits the query.
    public func useIndex(designDocument: String, name: String? = nil) -> CollectionQuery {
        var copy = self
        copy.indexHint = [designDocument] + (name.map { [$0] } ?? [])
        return copy
    }

    /// The Mango selector as sent to `_find`: `{"$and": [{"entityType": kind}, <components…>]}` (with
    /// `CDTISEntityName` for a kind in the Core Data bridge's layout).
    public var selectorJSON: JSONValue {
        .object(["$and": .array([.object([kindField: .string(kind)])] + components.map(\.json) + rawSelectors)])
    }

    /// The `FindRequest` the query runs as.
    ///
    /// ```swift
    /// let request = try store.collection("Note").where(field: "pinned", value: true).limit(5).request
    /// let page = try await store.find(request)
    /// ```
    /// - Throws: `CloudantError` `.invalidInput` whose `CloudantError.queryErrorKind` is CouchDB's error
    ///   name: a selector error such as `bad_arg` (an `$in` value that is not an array, a `$size` that is not
    ///   an integer) or `invalid_operator`; `invalid_field_name` for an empty sort or projection path;
    ///   `invalid_value` for a negative limit or skip.
    public var request: FindRequest {
        get throws(CloudantError) {
            let selector = try MangoSelector(selectorJSON)
            let sort = try sortFields.map { entry throws(CloudantError) in
                SortField(try FieldPath(parsing: entry.field), descending: entry.descending)
            }
            let projection = try fields.map { names throws(CloudantError) in
                try names.map { name throws(CloudantError) in try FieldPath(parsing: name) }
            }
            if let limitCount, limitCount < 0 {
                throw QueryErrorKind.invalidValue.error("limit must be a non-negative integer.", field: "limit")
            }
            guard skipCount >= 0 else {
                throw QueryErrorKind.invalidValue.error("skip must be a non-negative integer.", field: "skip")
            }
            return FindRequest(
                selector: selector, sort: sort, limit: limitCount ?? Int.max, skip: skipCount,
                fields: projection.flatMap { $0.isEmpty ? nil : $0 }, useIndex: indexHint)
        }
    }
}
