/// A versioned entity with a schedule: ``CareTask``, ``HealthKitLinkedTask`` or a custom task kind.
///
/// Events, event windows across versions and outcome guards (`TaskVersionEvents`, ``OutcomeRules``) work on
/// any conforming type.
public protocol SchedulableTask: VersionedEntity {
    /// When the task's events happen.
    var schedule: Schedule { get }
}
