public import CloudantCore

/// Registers the health sample kinds (quantity, category, correlation, workout, workout route, CDA document,
/// activity summary, clinical record, and the generic sample that keeps every other type) with a store, each with the index health queries use.
///
/// ```swift
/// import CloudantHealth
/// let registry = try EntityRegistry(plugins: [HealthPlugin()])
/// let store = try DocumentStore.open(name: "health", options: StoreOptions(registry: registry))
/// try await store.add([heartRate])
/// ```
///
/// Kind names are HealthKit's class names (`HKQuantitySample`, `HKWorkout`…), see ``HealthSampleType``.
public struct HealthPlugin: EntityPlugin {
    /// The plugin's registry name.
    public static let pluginName = "org.theraforge.cloudant.health"

    /// The index every health kind declares: kind, HealthKit type identifier, then start date, so "workouts
    /// in June" and "sleep by date" are range scans. The kinds share one definition; the store creates it once
    /// (a second identical declaration is a no-op).
    ///
    /// Quantity samples (most of a health store) are left out by a partial filter: ``quantityProjection``
    /// keeps them in the same order in a fifth of the space, and `CollectionQuery.getSamples()` and
    /// `HealthStore.samples(ofType:in:)` read them from it. Being partial, the index is used by queries that
    /// name it (`use_index`), as `HealthStore.collection(healthKitSampleType:fields:)` does for the other
    /// families. A Mango query of quantity samples through `_find` filters them all, unless its user creates an
    /// index for it.
    public static let sampleIndex = IndexDefinition(
        name: "health-samples-by-type-and-start", designDocument: "health",
        fields: sampleIndexFields, partialFilterSelector: ["entityType": ["$ne": .string(HealthSampleType.quantity.kindName)]])

    /// ``sampleIndex`` over every sample, quantities included, under the same name: for a store that keeps no
    /// ``quantityProjection`` (the drop-in store opened without this plugin), where quantities have no other
    /// order.
    package static let sampleIndexOverEverySample = IndexDefinition(
        name: sampleIndex.name, designDocument: sampleIndex.designDocument, fields: sampleIndexFields)

    private static let sampleIndexFields: [IndexDefinition.Field] = [
        .ascending("entityType"), .ascending("typeIdentifier"), .ascending("startDate"),
    ]

    /// The columns of quantity samples that computations over many samples read (the care bridge's
    /// outcomes of health-linked tasks): type, dates as instants, value and unit, and what ranks the source.
    /// Read with `DocumentStore.projectedRows`; the columns come in the order of ``QuantityColumn``.
    public static let quantityProjection = ColumnProjection(
        name: "health-quantity-samples",
        columns: QuantityColumn.allCases.map { ColumnProjection.Column($0.name, path: $0.path, type: $0.type) },
        orderedBy: [QuantityColumn.typeIdentifier.name, QuantityColumn.start.name, QuantityColumn.end.name])

    /// The columns of ``quantityProjection``, in order (`rawValue` is the position).
    public enum QuantityColumn: Int, CaseIterable, Sendable {
        /// The HealthKit type identifier (a label).
        case typeIdentifier
        /// `startDate` as an instant.
        case start
        /// `endDate` as an instant.
        case end
        /// The value (double).
        case value
        /// The unit string (a label).
        case unit
        /// The sample's uuid (text; in rows, the document id unless the two differ).
        case uuid
        /// `source.name` (a label).
        case sourceName
        /// `device.name` (a label).
        case deviceName
        /// `device.model` (a label).
        case deviceModel
        /// `device.hardwareVersion` (a label).
        case deviceHardwareVersion

        /// The column's name.
        public var name: String { String(describing: self) }

        fileprivate var path: String {
            switch self {
            case .typeIdentifier: "typeIdentifier"
            case .start: "startDate"
            case .end: "endDate"
            case .value: "value"
            case .unit: "unit"
            case .uuid: "uuid"
            case .sourceName: "source.name"
            case .deviceName: "device.name"
            case .deviceModel: "device.model"
            case .deviceHardwareVersion: "device.hardwareVersion"
            }
        }

        /// Type identifiers, units, and source and device names are a few dozen texts over millions of
        /// samples: labels, stored once each. The uuid is the sample's document id (the import and
        /// ``HealthSample`` use it as the id), so rows mark it rather than repeat it (`.identifier`).
        fileprivate var type: ColumnProjection.ColumnType {
            switch self {
            case .start, .end: .date
            case .value: .real
            case .uuid: .identifier
            case .typeIdentifier, .unit, .sourceName, .deviceName, .deviceModel, .deviceHardwareVersion: .label
            }
        }
    }

    /// The plugin's registry name.
    public var name: String { Self.pluginName }

    /// The kind names this plugin registers, in order.
    public var kindNames: [String] { HealthSampleType.allCases.map(\.kindName) }

    /// Creates the plugin.
    public init() {}

    /// Registers the health kinds.
    /// - Throws: `CloudantError` `.duplicateEntityType` or `.duplicateKindName` when another plugin
    ///   already registered one of them.
    public func register(in registry: inout EntityRegistry) throws {
        try registry.register(Self.kind(CategorySample.self))
        try registry.register(Self.kind(QuantitySample.self))
        try registry.register(Self.kind(CorrelationSample.self))
        try registry.register(Self.kind(WorkoutSample.self))
        try registry.register(Self.kind(WorkoutRouteSample.self))
        try registry.register(Self.kind(CDADocumentSample.self))
        try registry.register(Self.kind(ActivitySummarySample.self))
        try registry.register(Self.kind(ClinicalRecordSample.self))
        try registry.register(Self.kind(GenericSample.self))
    }

    /// The registry entry of a sample type: its family's kind name, the sample index, the quantity projection
    /// for quantities, and the check that a sample does not end before it starts.
    static func kind<Sample: HealthSample>(_ type: Sample.Type) -> EntityKind<Sample> {
        let projections = type.sampleType == .quantity ? [quantityProjection] : []
        return EntityKind(type, name: type.sampleType.kindName, indexes: [sampleIndex], projections: projections) { sample in
            guard sample.endDate >= sample.startDate else {
                throw CloudantError(
                    .invalidInput, "A sample's endDate must not be before its startDate.",
                    context: .init(documentID: sample.id, kind: type.sampleType.kindName, field: "endDate"))
            }
        }
    }
}

extension HealthSample {
    /// The kind ``HealthPlugin`` registers for the type, so a store without the plugin that takes unregistered
    /// types (the drop-in `OTFCloudantStore`) still stores samples under their HealthKit class names.
    public static var defaultEntityKind: AnyEntityKind { AnyEntityKind(HealthPlugin.kind(Self.self)) }
}
