public import Foundation

/// A care entity with CareKit's versioning: every update or delete adds a version that shares the `id`.
///
/// Conforming types keep the shared fields in ``versioned`` and get each of them as a property of their own,
/// so code reads as it does with CareKit (`task.uuid`, `patient.effectiveDate`). Custom kinds (ParseCareKit's
/// `CancerPatient`, `Doctor`) conform too and work with ``VersionHistory``.
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
    /// Identifies this one version.
    public var uuid: UUID {
        get { versioned.uuid }
        set { versioned.uuid = newValue }
    }
    /// When this version starts to take precedence over older ones.
    public var effectiveDate: Date {
        get { versioned.effectiveDate }
        set { versioned.effectiveDate = newValue }
    }
    /// Set only on a tombstone version.
    public var deletedDate: Date? {
        get { versioned.deletedDate }
        set { versioned.deletedDate = newValue }
    }
    /// The versions this one replaces.
    public var previousVersionUUIDs: [UUID] {
        get { versioned.previousVersionUUIDs }
        set { versioned.previousVersionUUIDs = newValue }
    }
    /// The versions that replace this one.
    public var nextVersionUUIDs: [UUID] {
        get { versioned.nextVersionUUIDs }
        set { versioned.nextVersionUUIDs = newValue }
    }
    /// When the first version was stored.
    public var createdDate: Date? {
        get { versioned.createdDate }
        set { versioned.createdDate = newValue }
    }
    /// When this version was stored.
    public var updatedDate: Date? {
        get { versioned.updatedDate }
        set { versioned.updatedDate = newValue }
    }
    /// The schema version the store stamped.
    public var schemaVersion: SemanticVersion? {
        get { versioned.schemaVersion }
        set { versioned.schemaVersion = newValue }
    }
    /// An identifier for a remote database.
    public var remoteID: String? {
        get { versioned.remoteID }
        set { versioned.remoteID = newValue }
    }
    /// A free-form group.
    public var groupIdentifier: String? {
        get { versioned.groupIdentifier }
        set { versioned.groupIdentifier = newValue }
    }
    /// Free-form tags.
    public var tags: [String]? {
        get { versioned.tags }
        set { versioned.tags = newValue }
    }
    /// Where the data came from.
    public var source: String? {
        get { versioned.source }
        set { versioned.source = newValue }
    }
    /// The developer's own string values.
    public var userInfo: [String: String]? {
        get { versioned.userInfo }
        set { versioned.userInfo = newValue }
    }
    /// A URL or bundle name for an asset.
    public var asset: String? {
        get { versioned.asset }
        set { versioned.asset = newValue }
    }
    /// Notes attached to this version.
    public var notes: [Note]? {
        get { versioned.notes }
        set { versioned.notes = newValue }
    }
    /// The time zone the record was created in.
    public var timezone: TimeZone {
        get { versioned.timezone }
        set { versioned.timezone = newValue }
    }
}
