internal import CloudantCore
internal import CloudantCareModule
internal import CloudantHealthModule
internal import CloudantStore
internal import Foundation

extension CareHealthStore {
    /// The members of a quantity sample document outcome computation reads.
    private static let projectedFields = ["uuid", "value", "unit", "startDate", "endDate", "source", "device"]

    /// The quantity samples of `quantityIdentifier` that overlap `[start, end)` (or hold an instant in it), with
    /// their values in `converter`'s unit, sorted by start then uuid.
    ///
    /// Two Cloudant Queries on the health sample index: the samples starting in the range (a two-sided index
    /// range), and the few starting before it that end inside or after its start. The second is a one-sided
    /// range, so its cost grows with the samples stored before the range.
    func sampleReadings(
        _ quantityIdentifier: String, from start: Date, to end: Date, converter: inout LinkedUnitConverter
    ) async throws -> [SampleReading] {
        let startText = try Self.timestamp(start)
        let inRange = try await find(
            quantityIdentifier, [("startDate", .gte(.string(startText))), ("startDate", .lt(.string(try Self.timestamp(end))))])
        let straddling = try await find(
            quantityIdentifier, [("startDate", .lt(.string(startText))), ("endDate", .gt(.string(startText)))])
        var readings: [SampleReading] = []
        readings.reserveCapacity(inRange.count + straddling.count)
        for document in straddling + inRange {
            readings.append(try Self.reading(document, converter: &converter))
        }
        return readings.sorted { ($0.start, $0.uuid) < ($1.start, $1.uuid) }
    }

    private func find(_ quantityIdentifier: String, _ conditions: [(String, MangoSelector.Condition)]) async throws
        -> [JSONObject]
    {
        // One flat `$and`: the planner takes index ranges from top-level conditions only.
        var nodes: [MangoSelector.Node] = [
            .field(try FieldPath(parsing: "entityType"), .eq(.string(HealthSampleType.quantity.kindName))),
            .field(try FieldPath(parsing: "typeIdentifier"), .eq(.string(quantityIdentifier))),
        ]
        for (field, condition) in conditions { nodes.append(.field(try FieldPath(parsing: field), condition)) }
        let request = FindRequest(
            selector: MangoSelector(root: .and(nodes)), limit: Int.max,
            fields: try Self.projectedFields.map { try FieldPath(parsing: $0) },
            useIndex: [HealthPlugin.sampleIndex.designDocument ?? "health", HealthPlugin.sampleIndex.name])
        return try await store.find(request).docs
    }

    private static func reading(_ document: JSONObject, converter: inout LinkedUnitConverter) throws -> SampleReading {
        let uuid = document["uuid"]?.stringValue ?? document["_id"]?.stringValue ?? ""
        guard let value = document["value"]?.numberValue?.doubleValue, let unit = document["unit"]?.stringValue,
            let start = document["startDate"]?.stringValue.flatMap(ISO8601Timestamp.date(from:)),
            let end = document["endDate"]?.stringValue.flatMap(ISO8601Timestamp.date(from:))
        else {
            throw CloudantError(
                .invalidValue, "A stored quantity sample lacks a value, unit, startDate or endDate; re-import it.",
                context: .init(documentID: uuid, kind: HealthSampleType.quantity.kindName))
        }
        let converted = try converter.convert(value, from: unit, sampleID: uuid)
        // Only what ranking needs: decoding the whole source and device of a million samples would dominate.
        let source = document["source"]?["name"]?.stringValue
        let device = document["device"]
        let kind = HealthSourcePriority.kind(
            of: source.map { HealthSource(name: $0) },
            device: device.map { device in
                HealthDevice(
                    name: device["name"]?.stringValue, model: device["model"]?.stringValue,
                    hardwareVersion: device["hardwareVersion"]?.stringValue)
            })
        return SampleReading(
            uuid: uuid, start: start, end: end, value: converted,
            sourceRank: .init(kind: kind.rawValue, name: source ?? ""))
    }

    private static func timestamp(_ date: Date) throws -> String {
        guard let text = ISO8601Timestamp.string(from: date) else {
            throw CloudantError(.invalidValue, "A date must be writable as ISO 8601 text.", context: .init(field: "interval"))
        }
        return text
    }
}
