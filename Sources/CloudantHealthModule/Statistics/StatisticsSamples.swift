internal import Foundation

/// Quantity samples of one type as statistics read them: a compact row per sample (its instants, value and
/// the positions of its unit and source) and the tables of the units and sources the rows share.
///
/// A year of heart rates is hundreds of thousands of samples; as ``QuantitySample``s they are hundreds of
/// bytes each with a dozen strings, as rows 40 bytes and no string at all.
struct StatisticsSamples {
    struct Row {
        var start: Double
        var end: Double
        var value: Double
        var unit: Int32
        var source: Int32
    }

    /// A source, by name, with the first device seen with it (what ranks it; see ``HealthSourcePriority``).
    struct Source {
        var name: String
        var source: HealthSource?
        var device: HealthDevice?
    }

    private(set) var rows: [Row] = []
    private(set) var units: [String] = []
    private(set) var sources: [Source] = []
    private var unitPositions: [String: Int32] = [:]
    private var sourcePositions: [String: Int32] = [:]

    init() {}

    /// The samples of `typeIdentifier` among `samples`.
    init(_ samples: [QuantitySample], typeIdentifier: String) {
        for sample in samples where sample.typeIdentifier == typeIdentifier {
            append(
                start: sample.startDate.timeIntervalSince1970, end: sample.endDate.timeIntervalSince1970, value: sample.value,
                unit: unitPosition(sample.unit), source: sourcePosition(sample.source, device: sample.device))
        }
    }

    mutating func append(start: Double, end: Double, value: Double, unit: Int32, source: Int32) {
        rows.append(Row(start: start, end: end, value: value, unit: unit, source: source))
    }

    /// The position of `unit` in ``units``, added when new.
    mutating func unitPosition(_ unit: String) -> Int32 {
        if let known = unitPositions[unit] { return known }
        let position = Int32(units.count)
        units.append(unit)
        unitPositions[unit] = position
        return position
    }

    /// The position of the source named by `source` (`""` for none) in ``sources``, added when new.
    mutating func sourcePosition(_ source: HealthSource?, device: HealthDevice?) -> Int32 {
        let name = source?.name ?? ""
        if let known = sourcePositions[name] { return known }
        let position = Int32(sources.count)
        sources.append(Source(name: name, source: source, device: device))
        sourcePositions[name] = position
        return position
    }

    /// The unit most rows are in (ties to the alphabetically first).
    func mostCommonUnit() -> String? {
        var counts = Array(repeating: 0, count: units.count)
        for row in rows { counts[Int(row.unit)] += 1 }
        return units.indices.max { (counts[$0], units[$1]) < (counts[$1], units[$0]) }.map { units[$0] }
    }
}
