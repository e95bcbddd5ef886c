public import CloudantCore

/// A value with its unit (`HKQuantity`).
///
/// ```swift
/// let distance = HealthQuantity(value: 5, unit: .kilometer)
/// try distance.doubleValue(for: .mile)   // 3.1068559611866697
/// ```
public struct HealthQuantity: Codable, Hashable, Sendable {
    /// The number, in ``unit``.
    public var value: Double
    /// The unit.
    public var unit: HealthUnit

    /// Creates a quantity.
    public init(value: Double, unit: HealthUnit) {
        self.value = value
        self.unit = unit
    }

    /// The value expressed in `target` (`HKQuantity.doubleValue(for:)`).
    /// - Throws: `CloudantError` `.incompatibleUnits` when `target` measures something else.
    public func doubleValue(for target: HealthUnit) throws(CloudantError) -> Double {
        try unit.convert(value, to: target)
    }

    /// Whether the quantity can be expressed in `target` (`HKQuantity.is(compatibleWith:)`).
    public func isCompatible(with target: HealthUnit) -> Bool { unit.isCompatible(with: target) }
}
