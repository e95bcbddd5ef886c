public import Foundation

/// Which rows of a column projection to read, in which order (see ``DocumentStore/projectedRows(_:_:)``).
///
/// ```swift
/// let query = ProjectionQuery(
///     projection: "quantity-samples",
///     where: [
///         .init("typeIdentifier", .equal, .text("HKQuantityTypeIdentifierStepCount")),
///         .init("start", .greaterOrEqual, .date(monday)),
///         .init("start", .less, .date(nextMonday)),
///     ])
/// ```
///
/// Conditions are SQL comparisons on the stored columns, all of which must hold; `NULL` (a missing field)
/// satisfies only ``ProjectionCondition/Comparison/isNull``. Rows come ordered by the projection's
/// `orderedBy` columns, then by document row, so equal queries read equal orders. Equality on leading
/// `orderedBy` columns and a range on the next one read only the rows they name.
public struct ProjectionQuery: Sendable, Hashable {
    /// The projection's name.
    public var projection: String
    /// Conditions every row read satisfies.
    public var conditions: [ProjectionCondition]
    /// Reverses the order.
    public var descending: Bool
    /// At most this many rows; all when nil.
    public var limit: Int?

    /// Describes a read.
    public init(projection: String, where conditions: [ProjectionCondition] = [], descending: Bool = false, limit: Int? = nil) {
        self.projection = projection
        self.conditions = conditions
        self.descending = descending
        self.limit = limit
    }
}

/// One condition on a projection column.
public struct ProjectionCondition: Sendable, Hashable {
    /// How the column compares with the value.
    public enum Comparison: String, Sendable, Hashable {
        /// `column = value`.
        case equal = "="
        /// `column <> value` (a `NULL` column never matches).
        case notEqual = "<>"
        /// `column < value`.
        case less = "<"
        /// `column <= value`.
        case lessOrEqual = "<="
        /// `column > value`.
        case greater = ">"
        /// `column >= value`.
        case greaterOrEqual = ">="
        /// The field was missing or of another type (the value is ignored).
        case isNull = "IS NULL"
        /// The field was present with the column's type (the value is ignored).
        case isNotNull = "IS NOT NULL"
    }

    /// The column's declared name.
    public var column: String
    /// The comparison.
    public var comparison: Comparison
    /// The value compared with.
    public var value: ProjectedValue

    /// A condition on `column`.
    public init(_ column: String, _ comparison: Comparison, _ value: ProjectedValue = .null) {
        self.column = column
        self.comparison = comparison
        self.value = value
    }
}

/// A value as projection columns hold it.
public enum ProjectedValue: Sendable, Hashable {
    /// Text (a `.text` column, or a `.json` column's JSON text).
    case text(String)
    /// A double (a `.real` column).
    case real(Double)
    /// An integer (an `.integer` column).
    case integer(Int64)
    /// An instant (a `.date` column holds it as seconds since 1970).
    case date(Date)
    /// No value.
    case null
}
