internal import CloudantCore
internal import CloudantStore
internal import Foundation
internal import Synchronization

extension DocumentStore {
    private typealias Column = HealthPlugin.QuantityColumn

    /// The quantity samples of `typeIdentifier` starting in `interval`, as the rows statistics read: from
    /// ``HealthPlugin/quantityProjection`` when the store keeps it (typed columns, no document parsed, no
    /// string made per sample: a year of a million samples reads in a fraction of the time), else decoded
    /// from the documents. Generic samples kept under the identifier that read as quantities are included
    /// either way, as ``samples(ofType:in:)`` includes them.
    func statisticsSamples(ofType typeIdentifier: String, in interval: DateInterval) async throws -> StatisticsSamples {
        guard try await projectionNames().contains(HealthPlugin.quantityProjection.name) else {
            let quantities = try await samples(ofType: typeIdentifier, in: interval).compactMap { sample -> QuantitySample? in
                if case .quantity(let quantity) = sample { return quantity }
                return nil
            }
            return StatisticsSamples(quantities, typeIdentifier: typeIdentifier)
        }
        let query = ProjectionQuery(
            projection: HealthPlugin.quantityProjection.name,
            where: [
                .init(Column.typeIdentifier.name, .equal, .text(typeIdentifier)),
                .init(Column.start.name, .greaterOrEqual, .date(interval.start)),
                .init(Column.start.name, .less, .date(interval.end)),
            ])
        let decoder = StatisticsRowDecoder()
        try await forEachProjectedRow(query) { row in decoder.append(row) }
        var table = decoder.takeTable()
        let generic = try await collection(healthKitSampleType: .generic).where(typeIdentifier: typeIdentifier)
            .where(startDateIn: interval).getSamples()
        for sample in generic {
            guard case .generic(let kept) = sample, case .quantity(let quantity)? = kept.typedSample() else { continue }
            table.append(
                start: quantity.startDate.timeIntervalSince1970, end: quantity.endDate.timeIntervalSince1970,
                value: quantity.value, unit: table.unitPosition(quantity.unit),
                source: table.sourcePosition(quantity.source, device: quantity.device))
        }
        return table
    }
}

/// Turns rows of the quantity projection into ``StatisticsSamples`` rows as they are read. Consecutive rows
/// almost always share their unit and source: those are compared in place with the previous row's, so most
/// rows make no string at all.
private final class StatisticsRowDecoder: Sendable {
    private typealias Column = HealthPlugin.QuantityColumn

    private struct State {
        var table = StatisticsSamples()
        var unit: String?
        var unitPosition: Int32 = 0
        var sourceName: String?
        var sourcePosition: Int32 = 0
        var first = true
    }

    private let state = Mutex(State())

    func takeTable() -> StatisticsSamples {
        state.withLock { state in
            defer { state.table = StatisticsSamples() }
            return state.table
        }
    }

    func append(_ row: ProjectedRow) {
        state.withLock { state in
            if state.first || !row.string(at: Column.unit.rawValue, equals: state.unit) {
                let unit = row.string(at: Column.unit.rawValue) ?? ""
                state.unit = unit
                state.unitPosition = state.table.unitPosition(unit)
            }
            if state.first || !row.string(at: Column.sourceName.rawValue, equals: state.sourceName) {
                let name = row.string(at: Column.sourceName.rawValue)
                let deviceName = row.string(at: Column.deviceName.rawValue)
                let model = row.string(at: Column.deviceModel.rawValue)
                let hardware = row.string(at: Column.deviceHardwareVersion.rawValue)
                let device = deviceName == nil && model == nil && hardware == nil
                    ? nil : HealthDevice(name: deviceName, model: model, hardwareVersion: hardware)
                state.sourceName = name
                state.sourcePosition = state.table.sourcePosition(name.map { HealthSource(name: $0) }, device: device)
            }
            state.first = false
            let start = row.double(at: Column.start.rawValue) ?? 0
            state.table.append(
                start: start, end: row.double(at: Column.end.rawValue) ?? start, value: row.double(at: Column.value.rawValue) ?? 0,
                unit: state.unitPosition, source: state.sourcePosition)
        }
    }
}
