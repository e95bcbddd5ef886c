public import CloudantStore

// OTFCloudantStore's names for the query components, its misspelled labels included, so conditions written
// for the original compile unchanged. Each is the same value as ours: a ``QueryComponent`` nests to any
// depth, so the original's three component types are one.

/// OTFCloudantStore's condition: a `QueryComponent`.
public typealias OTFCloudantQueryComponent = QueryComponent

/// OTFCloudantStore's combination of two conditions: a `QueryComponent`.
public typealias OTFCloudantCombinationQueryComponent = QueryComponent

/// OTFCloudantStore's combination of two combinations: a `QueryComponent`.
public typealias OTFCloudantComplexQueryComponent = QueryComponent

/// OTFCloudantStore's comparison operator: a `ComparisonOperator`.
public typealias OTFCloudantConditionSelector = ComparisonOperator

/// OTFCloudantStore's `$and`/`$or`: a `CombinationSelector`.
public typealias OTFCloudantCombinationSelector = CombinationSelector

/// OTFCloudantStore's spellings of the query builder's conditions.
extension QueryComponent {
    /// OTFCloudantStore's labelled condition, with its spelling of "comparison".
    ///
    /// ```swift
    /// let query = OTFCloudantQueryComponent.simpleComponent(field: "title", comparisionOperator: .equal, value: "Nurse")
    /// ```
    public static func simpleComponent(
        field: String, comparisionOperator: ComparisonOperator, value: some QueryValueConvertible
    ) -> QueryComponent {
        simpleComponent(field, comparisionOperator, value)
    }

    /// OTFCloudantStore's labelled condition with the value before the operator, as its README writes it.
    ///
    /// ```swift
    /// let young = OTFCloudantQueryComponent.simpleComponent(field: "age", value: 20, comparisionOperator: .lessThan)
    /// ```
    public static func simpleComponent(
        field: String, value: some QueryValueConvertible, comparisionOperator: ComparisonOperator
    ) -> QueryComponent {
        simpleComponent(field, comparisionOperator, value)
    }

    /// OTFCloudantStore's `OTFCloudantCombinationQueryComponent.combinedQueryComponent`: two conditions joined.
    public static func combinedQueryComponent(
        leftComponent: QueryComponent, combinationSelector: CombinationSelector, rightComponent: QueryComponent
    ) -> QueryComponent {
        .combinedComponent(leftComponent, combinationSelector, rightComponent)
    }

    /// OTFCloudantStore's `OTFCloudantComplexQueryComponent.complexQueryComponent`: two combinations joined
    /// (`combinationSelector` was `.or` by default).
    public static func complexQueryComponent(
        leftComponent: QueryComponent, combinationSelector: CombinationSelector = .or, rightComponent: QueryComponent
    ) -> QueryComponent {
        .combinedComponent(leftComponent, combinationSelector, rightComponent)
    }
}

/// OTFCloudantStore's spelling of "not equal".
extension ComparisonOperator {
    /// OTFCloudantStore's name for `notEqual` (which it sent as `$neq`, matching nothing; this sends `$ne`).
    public static var notEqualTo: ComparisonOperator { .notEqual }
}
