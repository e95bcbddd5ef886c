public import Foundation

/// A care entity with CareKit's versioning: every update or delete adds a version that shares the `id`.
///
/// Conforming types keep the shared fields in ``versioned`` and read and write each of them as a property of
/// their own (dynamic member lookup), so code reads as it does with CareKit (`task.uuid`,
/// `patient.effectiveDate`). Custom kinds (ParseCareKit's `CancerPatient`, `Doctor`) conform too and work with
/// ``VersionHistory``.
///
/// ```swift
/// struct Doctor: VersionedEntity {
///     var patient: Patient
///     var versioned: VersionedFields {
///         get { patient.versioned }
///         set { patient.versioned = newValue }
///     }
/// }
/// ```
@dynamicMemberLookup
public protocol VersionedEntity: Codable, Hashable, Sendable {
    /// The fields every version carries (uuid, id, effective date, version links, …).
    var versioned: VersionedFields { get set }
}

extension VersionedEntity {
    /// The developer's id, shared by every version of one logical object.
    public var id: String {
        get { versioned.id }
        set { versioned.id = newValue }
    }
    /// When this version starts to take precedence over older ones (a property of its own, as
    /// `effectiveDate(in:)` shares its name and would hide the member lookup below).
    public var effectiveDate: Date {
        get { versioned.effectiveDate }
        set { versioned.effectiveDate = newValue }
    }

    /// Every other member of ``VersionedFields`` as a property of the entity, as CareKit reads them:
    /// `task.uuid`, `patient.effectiveDate`, `plan.previousVersionUUIDs = [root.uuid]`.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<VersionedFields, Value>) -> Value {
        get { versioned[keyPath: keyPath] }
        set { versioned[keyPath: keyPath] = newValue }
    }
}
