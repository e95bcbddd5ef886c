public import Foundation

/// Something the patient should do on a schedule (CareKit's `OCKTask`).
///
/// Named `CareTask` rather than `Task` so that files importing the module keep Swift's `Task { … }`:
/// a public `Task` type would shadow it for every user.
///
/// ```swift
/// let schedule = try Schedule.dailyAtTime(hour: 8, minutes: 0, start: jan1, end: nil, text: nil)
/// let meds = CareTask(id: "meds", title: "Take meds", carePlanUUID: plan.uuid, schedule: schedule)
/// // meds.effectiveDate == schedule.startDate
/// ```
public struct CareTask: SchedulableTask, FlatVersionedCoding {
    /// The shared versioned fields.
    public var versioned: VersionedFields
    /// The task's title.
    public var title: String?
    /// How to do the task.
    public var instructions: String?
    /// Whether the task counts towards adherence; `true` unless set.
    public var impactsAdherence: Bool
    /// When the task's events happen.
    public var schedule: Schedule
    /// The care plan version the task belongs to.
    public var carePlanUUID: UUID?

    /// Creates the first version of a task, effective from its schedule's start as in CareKit.
    ///
    /// - Parameters:
    ///   - id: The developer's id.
    ///   - title: The task's title.
    ///   - carePlanUUID: The care plan version the task belongs to.
    ///   - schedule: When the task's events happen.
    ///   - uuid: This version's uuid; the live default is a random one.
    ///   - effectiveDate: When this version takes effect; the schedule's start unless given (2001-01-01 for an
    ///     empty schedule, which validation rejects anyway).
    ///   - timezone: The time zone it is created in; the live default is the current one.
    public init(
        id: String, title: String?, carePlanUUID: UUID?, schedule: Schedule, uuid: UUID = UUID(),
        effectiveDate: Date? = nil, timezone: TimeZone = .current
    ) {
        let effective = effectiveDate ?? schedule.startDate ?? Date(timeIntervalSinceReferenceDate: 0)
        self.versioned = VersionedFields(id: id, uuid: uuid, effectiveDate: effective, timezone: timezone)
        self.title = title
        self.instructions = nil
        self.impactsAdherence = true
        self.schedule = schedule
        self.carePlanUUID = carePlanUUID
    }

    enum CodingKeys: String, CodingKey {
        case title, instructions, impactsAdherence, schedule, carePlanUUID
    }

    /// Reads CareKit's flat JSON (see ``VersionedFields/init(from:)`` for dates and defaults). Without an
    /// `effectiveDate`, a decoder with ``CareDecodingDefaults`` makes the task effective from its schedule's
    /// start, as CareKit does.
    public init(from decoder: any Decoder) throws {
        try self.init(versioned: VersionedFields(from: decoder), members: decoder.container(keyedBy: CodingKeys.self))
        let shared = try decoder.container(keyedBy: VersionedFields.CodingKeys.self)
        if !shared.contains(.effectiveDate), let start = schedule.startDate {
            versioned.effectiveDate = start
        }
    }

    init(versioned: VersionedFields, members container: KeyedDecodingContainer<CodingKeys>) throws {
        self.versioned = versioned
        title = try container.decodeIfPresent(String.self, forKey: .title)
        instructions = try container.decodeIfPresent(String.self, forKey: .instructions)
        impactsAdherence = try container.decodeIfPresent(Bool.self, forKey: .impactsAdherence) ?? true
        schedule = try container.decode(Schedule.self, forKey: .schedule)
        carePlanUUID = try container.decodeIfPresent(UUID.self, forKey: .carePlanUUID)
    }

    func encodeMembers(to container: inout KeyedEncodingContainer<CodingKeys>) throws {
        try container.encodeIfPresent(title, forKey: .title)
        try container.encodeIfPresent(instructions, forKey: .instructions)
        try container.encode(impactsAdherence, forKey: .impactsAdherence)
        try container.encode(schedule, forKey: .schedule)
        try container.encodeIfPresent(carePlanUUID, forKey: .carePlanUUID)
    }
}
