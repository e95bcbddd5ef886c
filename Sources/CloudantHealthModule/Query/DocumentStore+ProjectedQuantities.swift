internal import CloudantCore
internal import CloudantStore
internal import Foundation
internal import Synchronization

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
        let decoder = QuantityRowDecoder(typeIdentifier: typeIdentifier)
        try await forEachProjectedRow(query) { row in decoder.append(row) }
        var quantities = decoder.takeSamples()
        let generic = try await collection(healthKitSampleType: .generic).where(typeIdentifier: typeIdentifier)
            .where(startDateIn: interval).getSamples()
        for sample in generic {
            if case .generic(let kept) = sample, case .quantity(let quantity)? = kept.typedSample() { quantities.append(quantity) }
        }
        return quantities
    }
}

/// Turns rows of the quantity projection into ``QuantitySample``s as they are read. Consecutive samples almost
/// always share their unit, source and device: those strings are compared in place and the previous one
/// reused, so a row costs the strings of its ids only.
private final class QuantityRowDecoder: Sendable {
    private typealias Column = HealthPlugin.QuantityColumn

    private struct State {
        var samples: [QuantitySample] = []
        var unit = ""
        var source: HealthSource?
        var device: HealthDevice?
    }

    private let typeIdentifier: String
    private let state = Mutex(State())

    init(typeIdentifier: String) {
        self.typeIdentifier = typeIdentifier
    }

    func takeSamples() -> [QuantitySample] {
        state.withLock { state in
            defer { state.samples = [] }
            return state.samples
        }
    }

    /// Appends the sample of one row (no metadata, no offsets: statistics read neither).
    func append(_ row: ProjectedRow) {
        state.withLock { state in
            if !row.string(at: Column.unit.rawValue, equals: state.unit) {
                state.unit = row.string(at: Column.unit.rawValue) ?? ""
            }
            if !row.string(at: Column.sourceName.rawValue, equals: state.source?.name) {
                state.source = row.string(at: Column.sourceName.rawValue).map { HealthSource(name: $0) }
            }
            if !row.string(at: Column.deviceName.rawValue, equals: state.device?.name)
                || !row.string(at: Column.deviceModel.rawValue, equals: state.device?.model)
                || !row.string(at: Column.deviceHardwareVersion.rawValue, equals: state.device?.hardwareVersion)
            {
                let name = row.string(at: Column.deviceName.rawValue)
                let model = row.string(at: Column.deviceModel.rawValue)
                let hardware = row.string(at: Column.deviceHardwareVersion.rawValue)
                state.device = name == nil && model == nil && hardware == nil
                    ? nil : HealthDevice(name: name, model: model, hardwareVersion: hardware)
            }
            let start = row.date(at: Column.start.rawValue) ?? Date(timeIntervalSince1970: 0)
            let id = row.documentID
            state.samples.append(
                QuantitySample(
                    id: id, uuid: row.string(at: Column.uuid.rawValue, equals: id) ? id : row.string(at: Column.uuid.rawValue) ?? id,
                    typeIdentifier: typeIdentifier, value: row.double(at: Column.value.rawValue) ?? 0, unit: state.unit,
                    startDate: start, endDate: row.date(at: Column.end.rawValue) ?? start, source: state.source,
                    device: state.device))
        }
    }
}
