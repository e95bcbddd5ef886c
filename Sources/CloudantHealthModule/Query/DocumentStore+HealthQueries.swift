internal import CloudantCore
public import CloudantStore
public import Foundation

/// Reading health samples by type and time.
extension DocumentStore {
    /// The work of `HealthStore.collection(healthKitSampleType:fields:)`, which documents it.
    func collection(healthKitSampleType: HealthSampleType, fields: [String]? = nil) -> CollectionQuery {
        let query = collection(healthKitSampleType.kindName, fields: fields)
        // The sample index leaves quantities out (the quantity projection orders them), so it is partial, and
        // a partial index is used only when a query names it.
        guard healthKitSampleType != .quantity else { return query }
        let index = HealthPlugin.sampleIndex
        return query.useIndex(designDocument: index.designDocument ?? index.name, name: index.name)
    }

    /// The work of `HealthStore.samples(ofType:in:)`, which documents it.
    func samples(ofType typeIdentifier: String, in interval: DateInterval? = nil) async throws -> [AnyHealthSample] {
        guard !typeIdentifier.isEmpty else {
            throw CloudantError(.invalidInput, "Name a type identifier, such as HKQuantityTypeIdentifierStepCount.",
                                context: .init(field: "typeIdentifier"))
        }
        var families: [HealthSampleType] = [.generic]
        if let family = HealthSampleType(typeIdentifier: typeIdentifier) { families.insert(family, at: 0) }
        var samples: [AnyHealthSample] = []
        for family in families {
            var query = collection(healthKitSampleType: family).where(typeIdentifier: typeIdentifier)
            if let interval { query = try query.where(startDateIn: interval) }
            let found = try await query.sort(ascending: "entityType").sort(ascending: "typeIdentifier")
                .sort(ascending: "startDate").getSamples()
            samples += found.map { sample in
                if case .generic(let generic) = sample, let typed = generic.typedSample() { return typed }
                return sample
            }
        }
        // Both lists are in start order; most types have only one of them.
        return families.count > 1 && samples.count > 1 ? samples.sorted { ($0.startDate, $0.id) < ($1.startDate, $1.id) } : samples
    }
}

/// Queries of health samples through the query builder.
extension CollectionQuery {
    /// Keeps samples of one HealthKit type identifier.
    public func `where`(typeIdentifier: String) -> CollectionQuery {
        self.where(field: "typeIdentifier", value: typeIdentifier)
    }

    /// Keeps samples whose start lies in `interval` (start included, end excluded).
    /// - Throws: `CloudantError` `.invalidInput` when a date cannot be written as ISO 8601.
    public func `where`(startDateIn interval: DateInterval) throws -> CollectionQuery {
        self.where(
            .simpleComponent("startDate", .greaterThanOrEqual, try JSONValue(encoding: interval.start)), .and,
            .simpleComponent("startDate", .lessThan, try JSONValue(encoding: interval.end)))
    }

    /// Runs the query and decodes each document as the sample family of its kind (the original's `getSamples`).
    ///
    /// Quantity samples of one type, optionally within start dates and sorted by start date, are read from
    /// ``HealthPlugin/quantityProjection`` when the store keeps it (the same samples in the same order the
    /// sample index gave); other quantity queries filter every quantity sample.
    /// - Throws: `CloudantError` `.invalidInput` when the query is not over a health kind, or naming a
    ///   document that does not decode; otherwise as `CollectionQuery.get(_:)` throws.
    public func getSamples() async throws -> [AnyHealthSample] {
        guard let family = HealthSampleType(kindName: kind) else {
            throw CloudantError(
                .invalidInput,
                "getSamples() needs a query over a health kind; start from collection(healthKitSampleType:).",
                context: .init(kind: kind))
        }
        switch family {
        case .category: return try await get(CategorySample.self).map(AnyHealthSample.category)
        case .quantity:
            if let projected = ProjectedQuantityQuery(self),
                try await store.projectionNames().contains(HealthPlugin.quantityProjection.name)
            {
                return try await projected.samples(in: store).map(AnyHealthSample.quantity)
            }
            return try await get(QuantitySample.self).map(AnyHealthSample.quantity)
        case .correlation: return try await get(CorrelationSample.self).map(AnyHealthSample.correlation)
        case .workout: return try await get(WorkoutSample.self).map(AnyHealthSample.workout)
        case .workoutRoute: return try await get(WorkoutRouteSample.self).map(AnyHealthSample.workoutRoute)
        case .cdaDocument: return try await get(CDADocumentSample.self).map(AnyHealthSample.cdaDocument)
        case .activitySummary: return try await get(ActivitySummarySample.self).map(AnyHealthSample.activitySummary)
        case .clinicalRecord: return try await get(ClinicalRecordSample.self).map(AnyHealthSample.clinicalRecord)
        case .generic: return try await get(GenericSample.self).map(AnyHealthSample.generic)
        }
    }
}
