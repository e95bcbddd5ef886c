internal import CloudantCore
internal import CloudantHealthModule
internal import CloudantStore
internal import Foundation
internal import Synchronization

/// Turns rows of the health module's quantity projection into ``SampleReading``s while they are read, so a
/// million samples are copied once: values converted to the linkage's unit, sources ranked.
///
/// The unit conversion and the source ranking remember the last unit and source they saw: consecutive
/// samples almost always share both, so most rows compare bytes in place instead of making strings and
/// hashing them. Readings are appended to one array across reads, so none is copied afterwards.
final class SampleReadingDecoder: Sendable {
    private typealias Column = HealthPlugin.QuantityColumn

    private struct State {
        var readings: [SampleReading] = []
        var converter: LinkedUnitConverter
        var lastUnit: String?
        var lastFactor: Double?
        var lastSource: SourceKey?
        var lastRank = SampleReading.SourceRank(kind: 0, name: "")
        var ranks: [SourceKey: SampleReading.SourceRank] = [:]
    }

    /// What ranks a sample's source.
    private struct SourceKey: Hashable {
        var sourceName: String?
        var deviceName: String?
        var deviceModel: String?
        var deviceHardwareVersion: String?
    }

    private let state: Mutex<State>

    init(converter: LinkedUnitConverter) {
        state = Mutex(State(converter: converter))
    }

    /// The converter as the reads left it (its cache of unit factors).
    var converter: LinkedUnitConverter { state.withLock { $0.converter } }

    /// The readings appended so far, handed over (the decoder keeps none).
    func takeReadings() -> [SampleReading] {
        state.withLock { state in
            defer { state.readings = [] }
            return state.readings
        }
    }

    /// Appends the reading of one projected row.
    /// - Throws: `CloudantError.Code.invalidInput` naming the sample when a column it needs is
    ///   missing; the converter's errors for a unit that does not convert.
    func append(_ row: ProjectedRow) throws {
        let uuid = row.string(at: Column.uuid.rawValue) ?? row.documentID
        guard let value = row.double(at: Column.value.rawValue), let unit = row.string(at: Column.unit.rawValue),
            let start = row.double(at: Column.start.rawValue), let end = row.double(at: Column.end.rawValue)
        else {
            throw CloudantError(
                .invalidInput, "A stored quantity sample lacks a value, unit, startDate or endDate; re-import it.",
                context: .init(documentID: uuid, kind: HealthSampleType.quantity.kindName))
        }
        try state.withLock { state in
            let converted = try Self.convert(value, unit: unit, uuid: uuid, &state)
            let rank = Self.rank(row, &state)
            state.readings.append(
                SampleReading(
                    uuid: uuid, start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: end),
                    value: converted, sourceRank: rank))
        }
    }

    private static func convert(_ value: Double, unit: String, uuid: String, _ state: inout State) throws -> Double {
        if unit == state.lastUnit, let factor = state.lastFactor { return value * factor }
        // Remember linear units only (a lone temperature converts value by value).
        state.lastUnit = unit
        state.lastFactor = try state.converter.factor(from: unit, sampleID: uuid)
        return try state.converter.convert(value, from: unit, sampleID: uuid)
    }

    private static func rank(_ row: ProjectedRow, _ state: inout State) -> SampleReading.SourceRank {
        if let last = state.lastSource, row.string(at: Column.sourceName.rawValue, equals: last.sourceName),
            row.string(at: Column.deviceName.rawValue, equals: last.deviceName),
            row.string(at: Column.deviceModel.rawValue, equals: last.deviceModel),
            row.string(at: Column.deviceHardwareVersion.rawValue, equals: last.deviceHardwareVersion)
        {
            return state.lastRank
        }
        let source = SourceKey(
            sourceName: row.string(at: Column.sourceName.rawValue), deviceName: row.string(at: Column.deviceName.rawValue),
            deviceModel: row.string(at: Column.deviceModel.rawValue),
            deviceHardwareVersion: row.string(at: Column.deviceHardwareVersion.rawValue))
        let rank: SampleReading.SourceRank
        if let known = state.ranks[source] {
            rank = known
        } else {
            let hasDevice = source.deviceName != nil || source.deviceModel != nil || source.deviceHardwareVersion != nil
            let kind = HealthSourcePriority.kind(
                of: source.sourceName.map { HealthSource(name: $0) },
                device: hasDevice
                    ? HealthDevice(
                        name: source.deviceName, model: source.deviceModel, hardwareVersion: source.deviceHardwareVersion)
                    : nil)
            rank = .init(kind: kind.rawValue, name: source.sourceName ?? "")
            state.ranks[source] = rank
        }
        state.lastSource = source
        state.lastRank = rank
        return rank
    }
}
