public import CloudantCore

// The names and spellings OTFCloudantStore users wrote, kept so their code compiles with a deprecation
// warning that names the replacement.

/// OTFCloudantStore's query builder.
@available(*, deprecated, renamed: "CollectionQuery")
public typealias OTFCloudantQuery = CollectionQuery

/// OTFCloudantStore's condition.
@available(*, deprecated, renamed: "QueryComponent")
public typealias OTFCloudantQueryComponent = QueryComponent

/// OTFCloudantStore's two-condition combination; every ``QueryComponent`` now nests.
@available(*, deprecated, renamed: "QueryComponent")
public typealias OTFCloudantCombinationQueryComponent = QueryComponent

/// OTFCloudantStore's combination of two combinations; every ``QueryComponent`` now nests.
@available(*, deprecated, renamed: "QueryComponent")
public typealias OTFCloudantComplexQueryComponent = QueryComponent

/// OTFCloudantStore's comparison operator.
@available(*, deprecated, renamed: "ComparisonOperator")
public typealias OTFCloudantConditionSelector = ComparisonOperator

/// OTFCloudantStore's `$and`/`$or`.
@available(*, deprecated, renamed: "CombinationSelector")
public typealias OTFCloudantCombinationSelector = CombinationSelector

extension QueryComponent {
    /// OTFCloudantStore's misspelled label.
    @available(*, deprecated, renamed: "simpleComponent(field:comparisonOperator:value:)")
    public static func simpleComponent(
        field: String, comparisionOperator: ComparisonOperator, value: JSONValue
    ) -> QueryComponent {
        .simpleComponent(field, comparisionOperator, value)
    }

    /// OTFCloudantStore's `OTFCloudantCombinationQueryComponent.combinedQueryComponent`.
    @available(*, deprecated, renamed: "combinedComponent(_:_:_:)")
    public static func combinedQueryComponent(
        leftComponent: QueryComponent, combinationSelector: CombinationSelector, rightComponent: QueryComponent
    ) -> QueryComponent {
        .combinedComponent(leftComponent, combinationSelector, rightComponent)
    }

    /// OTFCloudantStore's `OTFCloudantComplexQueryComponent.complexQueryComponent`.
    @available(*, deprecated, renamed: "combinedComponent(_:_:_:)")
    public static func complexQueryComponent(
        leftComponent: QueryComponent, combinationSelector: CombinationSelector, rightComponent: QueryComponent
    ) -> QueryComponent {
        .combinedComponent(leftComponent, combinationSelector, rightComponent)
    }
}

extension ComparisonOperator {
    /// OTFCloudantStore's name for ``notEqual``.
    @available(*, deprecated, renamed: "notEqual")
    public static var notEqualTo: ComparisonOperator { .notEqual }
}

extension CollectionQuery {
    /// OTFCloudantStore's equality condition.
    @available(*, deprecated, renamed: "where(field:value:)")
    public func `where`(propertyName: String, value: JSONValue) -> CollectionQuery {
        self.where(field: propertyName, value: value)
    }

    /// OTFCloudantStore's ascending sort.
    @available(*, deprecated, renamed: "sort(ascending:)")
    public func sort(ascendingBy field: String) -> CollectionQuery { sort(ascending: field) }

    /// OTFCloudantStore's descending sort.
    @available(*, deprecated, renamed: "sort(descending:)")
    public func sort(descendingBy field: String) -> CollectionQuery { sort(descending: field) }

    /// OTFCloudantStore's limit.
    @available(*, deprecated, renamed: "limit(_:)")
    public func limit(limit: Int) -> CollectionQuery { self.limit(limit) }

    /// OTFCloudantStore's skip.
    @available(*, deprecated, renamed: "skip(_:)")
    public func skip(skip: Int) -> CollectionQuery { self.skip(skip) }
}

extension DocumentStore {
    /// OTFCloudantStore's entry point.
    @available(*, deprecated, renamed: "collection(_:fields:)")
    public func collection(className: String, fields: [String]? = nil) -> CollectionQuery {
        collection(className, fields: fields)
    }
}
