internal import CloudantCore
internal import CloudantStore
internal import Foundation

extension DocumentStore {
    private typealias Column = HealthPlugin.QuantityColumn

    /// The quantity samples of `typeIdentifier` starting in `interval`, with the fields statistics read (type,
    /// dates, value, unit, uuid, source and device names): from ``HealthPlugin/quantityProjection`` when the
    /// store keeps it (typed columns, no document parsed: a year of a million samples reads in a fraction
    /// of the time), else decoded from the documents. Generic samples kept under the identifier that read as
    /// quantities are included either way, as ``samples(ofType:in:)`` includes them.
    func quantitySamples(ofType typeIdentifier: String, in interval: DateInterval) async throws -> [QuantitySample] {
        guard try await projectionNames().contains(HealthPlugin.quantityProjection.name) else {
            return try await samples(ofType: typeIdentifier, in: interval).compactMap { sample in
                if case .quantity(let quantity) = sample { return quantity }
                return nil
            }
        }
        let query = ProjectionQuery(
            projection: HealthPlugin.quantityProjection.name,
            where: [
                .init(Column.typeIdentifier.name, .equal, .text(typeIdentifier)),
                .init(Column.start.name, .greaterOrEqual, .date(interval.start)),
                .init(Column.start.name, .less, .date(interval.end)),
            ])
        var quantities = try await projectedRows(query) { row in Self.quantitySample(from: row, typeIdentifier: typeIdentifier) }
        let generic = try await collection(healthKitSampleType: .generic).where(typeIdentifier: typeIdentifier)
            .where(startDateIn: interval).getSamples()
        for sample in generic {
            if case .generic(let kept) = sample, case .quantity(let quantity)? = kept.typedSample() { quantities.append(quantity) }
        }
        return quantities
    }

    /// A quantity sample with the projected fields (no metadata, no offsets: statistics read neither).
    private static func quantitySample(from row: ProjectedRow, typeIdentifier: String) -> QuantitySample {
        let start = row.date(at: Column.start.rawValue) ?? Date(timeIntervalSince1970: 0)
        let deviceName = row.string(at: Column.deviceName.rawValue)
        let deviceModel = row.string(at: Column.deviceModel.rawValue)
        let hardware = row.string(at: Column.deviceHardwareVersion.rawValue)
        let device = deviceName == nil && deviceModel == nil && hardware == nil
            ? nil : HealthDevice(name: deviceName, model: deviceModel, hardwareVersion: hardware)
        return QuantitySample(
            id: row.documentID, uuid: row.string(at: Column.uuid.rawValue) ?? row.documentID, typeIdentifier: typeIdentifier,
            value: row.double(at: Column.value.rawValue) ?? 0, unit: row.string(at: Column.unit.rawValue) ?? "",
            startDate: start, endDate: row.date(at: Column.end.rawValue) ?? start,
            source: row.string(at: Column.sourceName.rawValue).map { HealthSource(name: $0) }, device: device)
    }
}
