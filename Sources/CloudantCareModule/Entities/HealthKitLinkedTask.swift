/// A task whose outcomes come from HealthKit (CareKit's `OCKHealthKitTask`): a ``CareTask`` plus a
/// ``HealthKitLinkage``, written as one flat JSON object with a `healthKitLinkage` key.
///
/// Task fields read through: `steps.title`, `steps.schedule`.
///
/// ```swift
/// let steps = HealthKitLinkedTask(
///     task: CareTask(id: "steps", title: "Walk", carePlanUUID: nil, schedule: schedule),
///     healthKitLinkage: HealthKitLinkage(quantityIdentifier: "HKQuantityTypeIdentifierStepCount",
///                                        quantityType: .cumulative, unitString: "count"))
/// ```
@dynamicMemberLookup
public struct HealthKitLinkedTask: SchedulableTask {
    /// The task's own fields.
    public var task: CareTask
    /// Where the task's outcomes come from.
    public var healthKitLinkage: HealthKitLinkage

    /// Creates a HealthKit-linked task.
    public init(task: CareTask, healthKitLinkage: HealthKitLinkage) {
        self.task = task
        self.healthKitLinkage = healthKitLinkage
    }

    /// The shared versioned fields (those of ``task``).
    public var versioned: VersionedFields {
        get { task.versioned }
        set { task.versioned = newValue }
    }

    /// When the task's events happen.
    public var schedule: Schedule { task.schedule }

    /// Reads and writes the task's fields directly (`linked.title`, `linked.carePlanUUID`).
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<CareTask, Value>) -> Value {
        get { task[keyPath: keyPath] }
        set { task[keyPath: keyPath] = newValue }
    }

    enum CodingKeys: String, CodingKey {
        case healthKitLinkage
    }

    /// Reads CareKit's flat `OCKHealthKitTask` JSON.
    public init(from decoder: any Decoder) throws {
        task = try CareTask(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        healthKitLinkage = try container.decode(HealthKitLinkage.self, forKey: .healthKitLinkage)
    }

    /// Writes CareKit's flat `OCKHealthKitTask` JSON.
    public func encode(to encoder: any Encoder) throws {
        try task.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(healthKitLinkage, forKey: .healthKitLinkage)
    }
}
