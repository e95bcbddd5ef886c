internal import CloudantCore
public import CloudantStore
public import Foundation

extension DocumentStore {
    /// Starts a query over one family of health samples (the seed's `collection(healthKitSampleType:)`).
    ///
    /// ```swift
    /// let samples = try await store.collection(healthKitSampleType: .quantity)
    ///     .where(typeIdentifier: "HKQuantityTypeIdentifierHeartRate")
    ///     .where(startDateIn: DateInterval(start: june1, end: july1))
    ///     .sort(ascending: "startDate")
    ///     .getSamples()
    /// ```
    /// Conditions on `typeIdentifier` and `startDate` use ``HealthPlugin/sampleIndex``.
    public func collection(healthKitSampleType: HealthSampleType, fields: [String]? = nil) -> CollectionQuery {
        collection(healthKitSampleType.kindName, fields: fields)
    }

    /// Every sample of one HealthKit type, optionally only those starting within `interval`, ordered by
    /// start date.
    ///
    /// ```swift
    /// let steps = try await store.samples(ofType: "HKQuantityTypeIdentifierStepCount", in: lastWeek)
    /// ```
    /// - Throws: ``CloudantError`` `.invalidValue` for a type identifier outside the families the store
    ///   keeps (``HealthSampleType/init(typeIdentifier:)``), or as ``CollectionQuery/getSamples()`` throws.
    public func samples(ofType typeIdentifier: String, in interval: DateInterval? = nil) async throws -> [AnyHealthSample] {
        guard let family = HealthSampleType(typeIdentifier: typeIdentifier) else {
            throw CloudantError(
                .invalidValue,
                "'\(typeIdentifier)' is not a HealthKit quantity, category, correlation, workout, route, document, "
                    + "activity summary or clinical type identifier.", context: .init(field: "typeIdentifier"))
        }
        var query = collection(healthKitSampleType: family).where(typeIdentifier: typeIdentifier)
        if let interval { query = try query.where(startDateIn: interval) }
        return try await query.sort(ascending: "entityType").sort(ascending: "typeIdentifier")
            .sort(ascending: "startDate").getSamples()
    }
}

extension CollectionQuery {
    /// Keeps samples of one HealthKit type identifier.
    public func `where`(typeIdentifier: String) -> CollectionQuery {
        self.where(field: "typeIdentifier", value: .string(typeIdentifier))
    }

    /// Keeps samples whose start lies in `interval` (start included, end excluded).
    /// - Throws: ``CloudantError`` `.invalidValue` when a date cannot be written as ISO 8601.
    public func `where`(startDateIn interval: DateInterval) throws -> CollectionQuery {
        self.where(
            .simpleComponent("startDate", .greaterThanOrEqual, try JSONValue(encoding: interval.start)), .and,
            .simpleComponent("startDate", .lessThan, try JSONValue(encoding: interval.end)))
    }

    /// Runs the query and decodes each document as the sample family of its kind (the seed's `getSamples`).
    /// - Throws: ``CloudantError`` `.invalidValue` when the query is not over a health kind, or naming a
    ///   document that does not decode; otherwise as ``CollectionQuery/get(_:)`` throws.
    public func getSamples() async throws -> [AnyHealthSample] {
        guard let family = HealthSampleType(kindName: kind) else {
            throw CloudantError(
                .invalidValue,
                "getSamples() needs a query over a health kind; start from collection(healthKitSampleType:).",
                context: .init(kind: kind))
        }
        switch family {
        case .category: return try await get(CategorySample.self).map(AnyHealthSample.category)
        case .quantity: return try await get(QuantitySample.self).map(AnyHealthSample.quantity)
        case .correlation: return try await get(CorrelationSample.self).map(AnyHealthSample.correlation)
        case .workout: return try await get(WorkoutSample.self).map(AnyHealthSample.workout)
        case .workoutRoute: return try await get(WorkoutRouteSample.self).map(AnyHealthSample.workoutRoute)
        case .cdaDocument: return try await get(CDADocumentSample.self).map(AnyHealthSample.cdaDocument)
        case .activitySummary: return try await get(ActivitySummarySample.self).map(AnyHealthSample.activitySummary)
        case .clinicalRecord: return try await get(ClinicalRecordSample.self).map(AnyHealthSample.clinicalRecord)
        }
    }
}
