internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// The body the entity API would store for a sample (`entityType`, `entitySchemaVersion`, no `revId`), for
/// a ``NewDocument`` to ``DocumentStore/insertNew(_:)``.
///
/// Quantity and category samples (nearly every document of an export) and workout routes (hundreds of
/// points each) are built member by member: the
/// same members and values `JSONValue(encoding:)` gives (`SampleDocumentTests` compares them on a whole
/// generated export), without `JSONEncoder`'s round trip through text, which measured as most of the
/// import's time. Other kinds, and dates outside the years 0…9999, go through the encoder.
enum SampleDocument {
    static func body(_ sample: AnyHealthSample) throws -> JSONObject {
        switch sample {
        case .quantity(let quantity): try Self.quantity(quantity) ?? encoded(sample)
        case .category(let category): try Self.category(category) ?? encoded(sample)
        case .workoutRoute(let route): try Self.route(route) ?? encoded(sample)
        // One summary a day and a few hundred clinical records an export: the encoder's cost does not show.
        case .activitySummary, .clinicalRecord: try encoded(sample)
        default: try encoded(sample)
        }
    }

    /// The new document for `sample`.
    static func make(_ sample: AnyHealthSample) throws -> NewDocument {
        try NewDocument(id: sample.id, body: body(sample))
    }

    /// Through `Codable`: what the entity API writes.
    static func encoded(_ sample: AnyHealthSample) throws -> JSONObject {
        guard case .object(var body) = try JSONValue(encoding: sample.sample) else { return JSONObject() }
        body.removeValue(forKey: "revId")
        return finished(body, kind: sample.sampleType.kindName)
    }

    private static func finished(_ body: JSONObject, kind: String) -> JSONObject {
        // The entity API's member names (CloudantStore's internal EntityField).
        var members = body.members
        members.append(("entityType", .string(kind)))
        members.append(("entitySchemaVersion", .number(JSONNumber(1))))
        return JSONObject(members)
    }

    private static func quantity(_ sample: QuantitySample) -> JSONObject? {
        guard var members = common(
            sample.startDate, sample.endDate, creation: sample.creationDate, device: sample.device, source: sample.source)
        else { return nil }
        members.append(contentsOf: [
            ("endUTCOffset", offset(sample.endUTCOffset)), ("id", .string(sample.id)),
            ("metadata", .object(metadata(sample.metadata))), ("startUTCOffset", offset(sample.startUTCOffset)),
            ("typeIdentifier", .string(sample.typeIdentifier)), ("unit", .string(sample.unit)),
            ("uuid", .string(sample.uuid)), ("value", .number(JSONNumber(sample.value))),
        ])
        return finished(JSONObject(members.filter { $0.1 != .null }), kind: QuantitySample.sampleType.kindName)
    }

    private static func category(_ sample: CategorySample) -> JSONObject? {
        guard var members = common(
            sample.startDate, sample.endDate, creation: sample.creationDate, device: sample.device, source: sample.source)
        else { return nil }
        members.append(contentsOf: [
            ("endUTCOffset", offset(sample.endUTCOffset)), ("id", .string(sample.id)),
            ("metadata", .object(metadata(sample.metadata))), ("startUTCOffset", offset(sample.startUTCOffset)),
            ("typeIdentifier", .string(sample.typeIdentifier)), ("uuid", .string(sample.uuid)),
            ("value", sample.value.map { .number(JSONNumber($0)) } ?? .null),
            ("valueName", sample.valueName.map(JSONValue.string) ?? .null),
        ])
        return finished(JSONObject(members.filter { $0.1 != .null }), kind: CategorySample.sampleType.kindName)
    }

    private static func route(_ sample: WorkoutRouteSample) -> JSONObject? {
        guard var members = common(sample.startDate, sample.endDate, creation: nil, device: sample.device, source: sample.source)
        else { return nil }
        var locations: [JSONValue] = []
        locations.reserveCapacity(sample.locations.count)
        for location in sample.locations {
            guard let time = ISO8601Timestamp.string(from: location.timestamp) else { return nil }
            let optionals: [(String, Double?)] = [
                ("altitude", location.altitude), ("course", location.course),
                ("horizontalAccuracy", location.horizontalAccuracy),
            ]
            var point = optionals.compactMap { key, value in value.map { (key, JSONValue.number(JSONNumber($0))) } }
            point.append(("latitude", .number(JSONNumber(location.latitude))))
            point.append(("longitude", .number(JSONNumber(location.longitude))))
            if let speed = location.speed { point.append(("speed", .number(JSONNumber(speed)))) }
            point.append(("timestamp", .string(time)))
            if let vertical = location.verticalAccuracy { point.append(("verticalAccuracy", .number(JSONNumber(vertical)))) }
            locations.append(.object(JSONObject(point)))
        }
        members.append(contentsOf: [
            ("endUTCOffset", offset(sample.endUTCOffset)), ("id", .string(sample.id)), ("locations", .array(locations)),
            ("metadata", .object(metadata(sample.metadata))), ("startUTCOffset", offset(sample.startUTCOffset)),
            ("typeIdentifier", .string(sample.typeIdentifier)), ("uuid", .string(sample.uuid)),
            ("workoutID", sample.workoutID.map(JSONValue.string) ?? .null),
        ])
        return finished(JSONObject(members.filter { $0.1 != .null }), kind: WorkoutRouteSample.sampleType.kindName)
    }

    /// Dates, source and device; `nil` when a date needs the encoder. Absent optionals are `.null` here
    /// and dropped by the caller, as the synthesised `Encodable` leaves them out.
    private static func common(
        _ start: Date, _ end: Date, creation: Date?, device: HealthDevice?, source: HealthSource?
    ) -> [(String, JSONValue)]? {
        guard let startText = ISO8601Timestamp.string(from: start), let endText = ISO8601Timestamp.string(from: end) else {
            return nil
        }
        var creationValue = JSONValue.null
        if let creation {
            guard let text = ISO8601Timestamp.string(from: creation) else { return nil }
            creationValue = .string(text)
        }
        return [
            ("creationDate", creationValue), ("device", device.map(Self.device) ?? .null), ("endDate", .string(endText)),
            ("source", source.map(Self.source) ?? .null), ("startDate", .string(startText)),
        ]
    }

    private static func offset(_ seconds: Int?) -> JSONValue { seconds.map { .number(JSONNumber($0)) } ?? .null }

    private static func metadata(_ values: [String: JSONValue]) -> JSONObject {
        JSONObject(values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    private static func source(_ source: HealthSource) -> JSONValue {
        .object(JSONObject([
            ("bundleIdentifier", source.bundleIdentifier.map(JSONValue.string) ?? .null), ("name", .string(source.name)),
            ("version", source.version.map(JSONValue.string) ?? .null),
        ].filter { $0.1 != .null }))
    }

    private static func device(_ device: HealthDevice) -> JSONValue {
        let members: [(String, String?)] = [
            ("hardwareVersion", device.hardwareVersion), ("manufacturer", device.manufacturer), ("model", device.model),
            ("name", device.name), ("softwareVersion", device.softwareVersion),
        ]
        return .object(JSONObject(members.compactMap { key, value in value.map { (key, JSONValue.string($0)) } }))
    }
}
