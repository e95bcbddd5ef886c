public import Foundation

/// What the patient recorded for one event (CareKit's `OCKOutcome`).
///
/// An outcome points at one task *version* (`taskUUID`) and one event of that version's schedule
/// (`taskOccurrenceIndex`); at most one live outcome exists per event.
///
/// ```swift
/// let taken = Outcome(taskUUID: meds.uuid, taskOccurrenceIndex: 3,
///                     values: [OutcomeValue(.boolean(true), createdDate: clock.now)])
/// ```
public struct Outcome: VersionedEntity, FlatVersionedCoding {
    /// The shared versioned fields.
    public var versioned: VersionedFields
    /// The task version the outcome belongs to.
    public var taskUUID: UUID
    /// The event's occurrence index in that task version's schedule.
    public var taskOccurrenceIndex: Int
    /// The recorded values.
    public var values: [OutcomeValue]

    /// Creates the first version of an outcome.
    ///
    /// - Parameters:
    ///   - taskUUID: The task version the outcome belongs to.
    ///   - taskOccurrenceIndex: The event's occurrence index.
    ///   - values: The recorded values.
    ///   - id: The developer's id; the uuid's text unless given (CareKit uses a random one).
    ///   - uuid: This version's uuid; the live default is a random one.
    ///   - effectiveDate: When this version takes effect; the live default is now.
    ///   - timezone: The time zone it is created in; the live default is the current one.
    public init(
        taskUUID: UUID, taskOccurrenceIndex: Int, values: [OutcomeValue], id: String? = nil, uuid: UUID = UUID(),
        effectiveDate: Date = Date(), timezone: TimeZone = .current
    ) {
        self.versioned = VersionedFields(
            id: id ?? uuid.uuidString, uuid: uuid, effectiveDate: effectiveDate, timezone: timezone)
        self.taskUUID = taskUUID
        self.taskOccurrenceIndex = taskOccurrenceIndex
        self.values = values
    }

    enum CodingKeys: String, CodingKey {
        case taskUUID, taskOccurrenceIndex, values
    }

    init(versioned: VersionedFields, members container: KeyedDecodingContainer<CodingKeys>) throws {
        self.versioned = versioned
        taskUUID = try container.decode(UUID.self, forKey: .taskUUID)
        taskOccurrenceIndex = try container.decode(Int.self, forKey: .taskOccurrenceIndex)
        values = try container.decodeIfPresent([OutcomeValue].self, forKey: .values) ?? []
    }

    func encodeMembers(to container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encode(taskUUID, forKey: .taskUUID)
        try container.encode(taskOccurrenceIndex, forKey: .taskOccurrenceIndex)
        try container.encode(values, forKey: .values)
    }
}
