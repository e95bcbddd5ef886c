/// A care entity the ``CareStore`` can keep: a ``VersionedEntity`` with a stable kind name and, optionally, the
/// version of another kind it points at.
///
/// The built-in kinds conform already; a custom kind (ParseCareKit's `CancerPatient`) conforms with its own
/// name and is registered with ``CarePlugin/kind(for:)``:
///
/// ```swift
/// extension CancerPatient: CareStorable {
///     static let careKindName = "cancerPatient"
/// }
/// try registry.register(CarePlugin.kind(for: CancerPatient.self))
/// ```
public protocol CareStorable: VersionedEntity {
    /// The kind name written into every document of this kind (CareKit's `OCKEntity` type name for built-ins).
    static var careKindName: String { get }
    /// The other kind this kind points at, if any (a task's care plan, an outcome's task).
    static var careRelation: CareRelation? { get }
}

extension CareStorable {
    /// No relation unless a kind declares one.
    public static var careRelation: CareRelation? { nil }
}

/// A reference from one care kind to a version of another (`carePlanUUID`, `patientUUID`, `taskUUID`).
public struct CareRelation: Sendable, Hashable {
    /// The JSON member holding the referenced version's uuid.
    public var field: String
    /// The kind names the uuid may point at (a task reference may name a task or a HealthKit-linked task).
    public var kindNames: [String]

    /// Creates a relation.
    public init(field: String, kindNames: [String]) {
        self.field = field
        self.kindNames = kindNames
    }
}

extension Patient: CareStorable {
    /// `"patient"`.
    public static let careKindName = "patient"
}

extension CarePlan: CareStorable {
    /// `"carePlan"`.
    public static let careKindName = "carePlan"
    /// A care plan points at a patient version.
    public static var careRelation: CareRelation? { CareRelation(field: "patientUUID", kindNames: ["patient"]) }
}

extension Contact: CareStorable {
    /// `"contact"`.
    public static let careKindName = "contact"
    /// A contact points at a care plan version.
    public static var careRelation: CareRelation? { CareRelation(field: "carePlanUUID", kindNames: ["carePlan"]) }
}

extension CareTask: CareStorable {
    /// `"task"`.
    public static let careKindName = "task"
    /// A task points at a care plan version.
    public static var careRelation: CareRelation? { CareRelation(field: "carePlanUUID", kindNames: ["carePlan"]) }
}

extension HealthKitLinkedTask: CareStorable {
    /// `"healthKitTask"`.
    public static let careKindName = "healthKitTask"
    /// A HealthKit-linked task points at a care plan version.
    public static var careRelation: CareRelation? { CareRelation(field: "carePlanUUID", kindNames: ["carePlan"]) }
}

extension Outcome: CareStorable {
    /// `"outcome"`.
    public static let careKindName = "outcome"
    /// An outcome points at a task version (of either task kind).
    public static var careRelation: CareRelation? {
        CareRelation(field: "taskUUID", kindNames: [CareTask.careKindName, HealthKitLinkedTask.careKindName])
    }
}
