public import CloudantCore
public import Foundation

/// What every health sample has, kept once and composed into each sample type (as care entities compose
/// their versioned fields): the document id and HealthKit's uuid, the type identifier, the interval with the
/// UTC offsets it was recorded in, when the device created it, its source and device, metadata of any JSON
/// type, and the revision it was read at.
///
/// A sample's JSON is flat: these members sit beside the family's own (`value`, `unit`, `day`…), as
/// HealthKit's exports and the original store wrote them. Each is also a property of every sample
/// (``HealthSample``), so `sample.startDate` reads and writes ``startDate``.
///
/// ```swift
/// var pulse = QuantitySample(uuid: "6F1B…", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 71,
///     unit: "count/min", startDate: start, endDate: start, startUTCOffset: -7 * 3600)
/// pulse.fields.metadata["HKWasUserEntered"] = true
/// pulse.endUTCOffset   // -25200: the end offset defaults to the start's
/// ```
public struct SampleFields: Sendable, Hashable {
    /// The document id (the sample's ``uuid`` unless an import derived it from the record's content).
    public var id: String
    /// HealthKit's uuid for the sample, as uppercase text.
    public var uuid: String
    /// HealthKit's type identifier (`HKQuantityTypeIdentifierHeartRate`, `HKWorkoutTypeIdentifier`).
    public var typeIdentifier: String
    /// When the sample starts.
    public var startDate: Date
    /// When the sample ends.
    public var endDate: Date
    /// The UTC offset in seconds the start was recorded in (`-25200` for `-0700`), when known.
    public var startUTCOffset: Int?
    /// The UTC offset in seconds the end was recorded in, when known.
    public var endUTCOffset: Int?
    /// When the device created the sample, when the export says (quantities, categories, workouts…).
    public var creationDate: Date?
    /// The app or device that wrote the sample.
    public var source: HealthSource?
    /// The hardware that measured it.
    public var device: HealthDevice?
    /// HealthKit metadata, any JSON value per key (`HKWasUserEntered`, `HKTimeZone`, custom keys).
    public var metadata: [String: JSONValue]
    /// The revision the sample was read at; `nil` for a sample never stored.
    public var revId: String?

    /// Creates the fields; `id` defaults to `uuid` and the end offset to the start offset.
    public init(
        id: String? = nil, uuid: String, typeIdentifier: String, startDate: Date, endDate: Date,
        startUTCOffset: Int? = nil, endUTCOffset: Int? = nil, creationDate: Date? = nil, source: HealthSource? = nil,
        device: HealthDevice? = nil, metadata: [String: JSONValue] = [:], revId: String? = nil
    ) {
        self.id = id ?? uuid
        self.uuid = uuid
        self.typeIdentifier = typeIdentifier
        self.startDate = startDate
        self.endDate = endDate
        self.startUTCOffset = startUTCOffset
        self.endUTCOffset = endUTCOffset ?? startUTCOffset
        self.creationDate = creationDate
        self.source = source
        self.device = device
        self.metadata = metadata
        self.revId = revId
    }
}

extension SampleFields: Codable {
    /// The members' keys; the synthesized encoder writes them into the sample's flat JSON object, in this
    /// order, absent optionals left out.
    private enum CodingKeys: String, CodingKey {
        case id, uuid, typeIdentifier, startDate, endDate, startUTCOffset, endUTCOffset, creationDate, source, device
        case metadata, revId
    }

    /// Reads the members from a sample's flat JSON; missing `metadata` reads as empty.
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, typeIdentifier: nil)
    }

    /// Reads the members from a sample's flat JSON; a family whose every sample has one type identifier
    /// (workouts, routes) passes it, so documents that left it out still read.
    public init(from decoder: any Decoder, typeIdentifier fallback: String?) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let typeIdentifier = try container.decodeIfPresent(String.self, forKey: .typeIdentifier) ?? fallback
        guard let typeIdentifier else {
            throw DecodingError.keyNotFound(
                CodingKeys.typeIdentifier,
                .init(codingPath: container.codingPath, debugDescription: "A health sample names its type identifier."))
        }
        // A stored end offset of `nil` stays `nil` (the initialiser's default is for new samples).
        let endUTCOffset = try container.decodeIfPresent(Int.self, forKey: .endUTCOffset)
        self.init(
            id: try container.decode(String.self, forKey: .id), uuid: try container.decode(String.self, forKey: .uuid),
            typeIdentifier: typeIdentifier, startDate: try container.decode(Date.self, forKey: .startDate),
            endDate: try container.decode(Date.self, forKey: .endDate),
            startUTCOffset: try container.decodeIfPresent(Int.self, forKey: .startUTCOffset),
            endUTCOffset: endUTCOffset, creationDate: try container.decodeIfPresent(Date.self, forKey: .creationDate),
            source: try container.decodeIfPresent(HealthSource.self, forKey: .source),
            device: try container.decodeIfPresent(HealthDevice.self, forKey: .device),
            metadata: try container.decodeIfPresent([String: JSONValue].self, forKey: .metadata) ?? [:],
            revId: try container.decodeIfPresent(String.self, forKey: .revId))
        self.endUTCOffset = endUTCOffset
    }

}
