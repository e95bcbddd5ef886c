internal import CloudantCore
internal import CloudantCareModule
internal import CloudantHealthModule
internal import CloudantStore
internal import Foundation

extension CareHealthStore {
    private typealias Column = HealthPlugin.QuantityColumn

    /// The quantity samples of `quantityIdentifier` that overlap `[start, end)` (or hold an instant in it), with
    /// their values in `converter`'s unit, sorted by start then uuid.
    ///
    /// Read from the health module's quantity projection (typed columns kept in step with every write, so
    /// no document body is parsed): the samples starting in the range (a two-sided range on the projection's
    /// `(typeIdentifier, start, end)` index), and those starting before it that end after its start (a
    /// one-sided range on the same index, answered from the index alone: its cost grows with the samples
    /// stored before the range, at SQLite's speed).
    func sampleReadings(
        _ quantityIdentifier: String, from start: Date, to end: Date, converter: inout LinkedUnitConverter
    ) async throws -> [SampleReading] {
        let decoder = SampleReadingDecoder(converter: converter)
        defer { converter = decoder.converter }
        let type = ProjectionCondition(Column.typeIdentifier.name, .equal, .text(quantityIdentifier))
        try await read([
            type, .init(Column.start.name, .less, .date(start)), .init(Column.end.name, .greater, .date(start)),
        ], into: decoder)
        try await read([
            type, .init(Column.start.name, .greaterOrEqual, .date(start)), .init(Column.start.name, .less, .date(end)),
        ], into: decoder)
        // Both reads come in start order and the second starts where the first ends: only samples that
        // start at the same instant need ordering, by uuid.
        var readings = decoder.takeReadings()
        Self.orderTies(&readings)
        return readings
    }

    private func read(_ conditions: [ProjectionCondition], into decoder: SampleReadingDecoder) async throws {
        let query = ProjectionQuery(projection: HealthPlugin.quantityProjection.name, where: conditions)
        try await store.forEachProjectedRow(query) { row in try decoder.append(row) }
    }

    /// Orders runs of readings with the same start by uuid (the rest is already in start order).
    static func orderTies(_ readings: inout [SampleReading]) {
        var runStart = 0
        while runStart < readings.count {
            var runEnd = runStart + 1
            while runEnd < readings.count, readings[runEnd].start == readings[runStart].start { runEnd += 1 }
            if runEnd - runStart > 1 { readings[runStart..<runEnd].sort { $0.uuid < $1.uuid } }
            runStart = runEnd
        }
    }
}
