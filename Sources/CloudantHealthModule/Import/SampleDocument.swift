public import CloudantCore
internal import CloudantStore
internal import Foundation

/// The body the entity API would store for a sample (`entityType`, `entitySchemaVersion`, no `revId`), for
/// a `NewDocument` to `DocumentStore.insertNew(_:)`.
///
/// Quantity and category samples (nearly every document of an export) and workout routes (hundreds of
/// points each) are built member by member: the
/// same members and values `JSONValue(encoding:)` gives (`SampleDocumentTests` compares them on a whole
/// generated export), without `JSONEncoder`'s round trip through text, which measured as most of the
/// import's time. Other kinds, and dates outside the years 0…9999, go through the encoder.
///
/// Members are kept sorted and unique as they are added: building objects through `JSONObject`'s
/// duplicate-checking initialiser (every name compared with every other) and sorting them again to write
/// them took a tenth of the import (profiled on 200k records).
enum SampleDocument {
    static func body(_ sample: AnyHealthSample, shared: SharedValues? = nil) throws -> JSONObject {
        switch sample {
        case .quantity(let quantity): try Self.quantity(quantity, shared: shared) ?? encoded(sample)
        case .category(let category): try Self.category(category, shared: shared) ?? encoded(sample)
        case .workoutRoute(let route): try Self.route(route, shared: shared) ?? encoded(sample)
        // One summary a day and a few hundred clinical records an export: the encoder's cost does not show.
        case .activitySummary, .clinicalRecord: try encoded(sample)
        default: try encoded(sample)
        }
    }

    /// The new document for `sample`.
    static func make(_ sample: AnyHealthSample, shared: SharedValues? = nil) throws -> NewDocument {
        try NewDocument(id: sample.id, body: body(sample, shared: shared))
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

    /// The JSON of the device and source last seen, reused while records repeat them (an export lists a
    /// device's records together): one tree shared by thousands of bodies instead of one built and freed
    /// for each. Used by one import on one task.
    final class SharedValues {
        private var device: (HealthDevice, JSONValue)?
        private var source: (HealthSource, JSONValue)?

        func json(of device: HealthDevice) -> JSONValue {
            if let (last, value) = self.device, last == device { return value }
            let value = SampleDocument.device(device)
            self.device = (device, value)
            return value
        }

        func json(of source: HealthSource) -> JSONValue {
            if let (last, value) = self.source, last == source { return value }
            let value = SampleDocument.source(source)
            self.source = (source, value)
            return value
        }
    }

    /// A body's members kept in the sorted order the stored JSON has (so the writer finds them sorted and
    /// has nothing to reorder), absent optionals left out as the synthesised `Encodable` leaves them out.
    /// Members are added mostly in order, so finding each one's place costs a comparison or two. Every name
    /// is added once, so the object needs no duplicate check.
    private struct Members {
        private(set) var list: [(key: String, value: JSONValue)] = []

        init(capacity: Int) { list.reserveCapacity(capacity) }

        mutating func add(_ key: String, _ value: JSONValue?) {
            guard let value else { return }
            var index = list.endIndex
            while index > list.startIndex, JSONWriter.precedesInUTF8(key, list[index - 1].key) { index -= 1 }
            list.insert((key, value), at: index)
        }

        mutating func add(_ key: String, _ text: String?) { add(key, text.map(JSONValue.string)) }
        mutating func add(_ key: String, _ number: Double?) { add(key, number.map { JSONValue.number(JSONNumber($0)) }) }
        mutating func add(_ key: String, _ number: Int?) { add(key, number.map { JSONValue.number(JSONNumber($0)) }) }

        var object: JSONObject { JSONObject(uniqueMembers: list) }
    }

    /// The members every sample kind has (what ``HealthSample`` declares, its kind and the entity API's
    /// `entityType`/`entitySchemaVersion`); `nil` when a date needs the encoder (outside the years 0…9999).
    private static func common<Sample: HealthSample>(
        _ sample: Sample, capacity: Int, shared: SharedValues?
    ) -> Members? {
        guard let start = ISO8601Timestamp.string(from: sample.startDate),
            let end = ISO8601Timestamp.string(from: sample.endDate)
        else { return nil }
        var members = Members(capacity: capacity)
        if let creation = sample.creationDate {
            guard let text = ISO8601Timestamp.string(from: creation) else { return nil }
            members.add("creationDate", text)
        }
        members.add("device", sample.device.map { device(device: $0, shared: shared) })
        members.add("endDate", end)
        members.add("endUTCOffset", sample.endUTCOffset)
        members.add("entitySchemaVersion", 1)
        members.add("entityType", Sample.sampleType.kindName)
        members.add("id", sample.id)
        members.add("metadata", .object(metadata(sample.metadata)))
        members.add("source", sample.source.map { source(source: $0, shared: shared) })
        members.add("startDate", start)
        members.add("startUTCOffset", sample.startUTCOffset)
        members.add("typeIdentifier", sample.typeIdentifier)
        members.add("uuid", sample.uuid)
        return members
    }

    private static func quantity(_ sample: QuantitySample, shared: SharedValues?) -> JSONObject? {
        guard var members = common(sample, capacity: 15, shared: shared) else { return nil }
        members.add("unit", sample.unit)
        members.add("value", sample.value)
        return members.object
    }

    private static func category(_ sample: CategorySample, shared: SharedValues?) -> JSONObject? {
        guard var members = common(sample, capacity: 16, shared: shared) else { return nil }
        members.add("value", sample.value)
        members.add("valueName", sample.valueName)
        return members.object
    }

    private static func route(_ sample: WorkoutRouteSample, shared: SharedValues?) -> JSONObject? {
        guard var members = common(sample, capacity: 15, shared: shared) else { return nil }
        var locations: [JSONValue] = []
        locations.reserveCapacity(sample.locations.count)
        for location in sample.locations {
            guard let time = ISO8601Timestamp.string(from: location.timestamp) else { return nil }
            var point = Members(capacity: 9)
            point.add("altitude", location.altitude)
            point.add("course", location.course)
            point.add("horizontalAccuracy", location.horizontalAccuracy)
            point.add("latitude", location.latitude)
            point.add("longitude", location.longitude)
            point.add("speed", location.speed)
            point.add("timestamp", time)
            point.add("verticalAccuracy", location.verticalAccuracy)
            locations.append(.object(point.object))
        }
        members.add("locations", .array(locations))
        members.add("workoutID", sample.workoutID)
        return members.object
    }

    private static func metadata(_ values: [String: JSONValue]) -> JSONObject {
        if values.isEmpty { return JSONObject() }
        return JSONObject(uniqueMembers: values.sorted { JSONWriter.precedesInUTF8($0.key, $1.key) }.map { ($0.key, $0.value) })
    }

    private static func source(source: HealthSource, shared: SharedValues?) -> JSONValue {
        shared?.json(of: source) ?? Self.source(source)
    }

    private static func device(device: HealthDevice, shared: SharedValues?) -> JSONValue {
        shared?.json(of: device) ?? Self.device(device)
    }

    fileprivate static func source(_ source: HealthSource) -> JSONValue {
        var members = Members(capacity: 3)
        members.add("bundleIdentifier", source.bundleIdentifier)
        members.add("name", source.name)
        members.add("version", source.version)
        return .object(members.object)
    }

    fileprivate static func device(_ device: HealthDevice) -> JSONValue {
        var members = Members(capacity: 5)
        members.add("hardwareVersion", device.hardwareVersion)
        members.add("manufacturer", device.manufacturer)
        members.add("model", device.model)
        members.add("name", device.name)
        members.add("softwareVersion", device.softwareVersion)
        return .object(members.object)
    }
}

extension AnyHealthSample {
    /// The body the store keeps for this sample, as the entity API writes it (its fields, `entityType` and
    /// `entitySchemaVersion`), without `_id` and `_rev`: for converters that write samples in the same
    /// transaction as documents of their own.
    ///
    /// ```swift
    /// var body = try AnyHealthSample.quantity(reading).storedBody()
    /// body["_id"] = .string(reading.id)
    /// body["importedFrom"] = "clinic-export-2026"
    /// ```
    /// - Throws: `CloudantError` when a field does not encode as JSON.
    public func storedBody() throws -> JSONObject { try SampleDocument.encoded(self) }
}
