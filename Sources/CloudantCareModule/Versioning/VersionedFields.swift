public import Foundation

/// The fields every versioned care entity shares (CareKit's `OCKVersionedObjectCompatible`), kept in one place.
///
/// Entities hold them in ``VersionedEntity/versioned`` and expose each one directly (`task.uuid`,
/// `task.effectiveDate`), while their JSON stays flat, exactly as CareKit writes it:
/// `{"id":…, "uuid":…, "effectiveDate":…, "title":…, …}`.
///
/// ```swift
/// var fields = VersionedFields(id: "meds", effectiveDate: start)
/// fields.tags = ["morning"]
/// ```
public struct VersionedFields: Codable, Hashable, Sendable {
    /// The developer's id, shared by every version of one logical object.
    public var id: String
    /// Identifies this one version. References from other entities point at it.
    public var uuid: UUID
    /// When this version starts to take precedence over older ones.
    public var effectiveDate: Date
    /// Set only on a tombstone version, when the object was deleted.
    public var deletedDate: Date?
    /// The versions this one replaces (more than one for a merge version).
    public var previousVersionUUIDs: [UUID]
    /// The versions that replace this one.
    public var nextVersionUUIDs: [UUID]
    /// When the first version was stored; `nil` until stored.
    public var createdDate: Date?
    /// When this version was stored; `nil` until stored.
    public var updatedDate: Date?
    /// The schema version the store stamped.
    public var schemaVersion: SemanticVersion?
    /// An identifier for a remote database; the store never interprets it.
    public var remoteID: String?
    /// A free-form group that can be queried and sorted on.
    public var groupIdentifier: String?
    /// Free-form tags; a query matches when any tag matches.
    public var tags: [String]?
    /// Where the data came from.
    public var source: String?
    /// The developer's own string values (ParseCareKit keeps its class name and ACL here).
    public var userInfo: [String: String]?
    /// A URL or bundle name for an asset.
    public var asset: String?
    /// Notes attached to this version.
    public var notes: [Note]?
    /// The time zone the record was created in. Recorded only: schedules are computed in the zone a query names.
    public var timezone: TimeZone

    /// Creates the shared fields of a new root version.
    ///
    /// - Parameters:
    ///   - id: The developer's id.
    ///   - uuid: This version's uuid; the live default is a random one.
    ///   - effectiveDate: When this version takes effect.
    ///   - timezone: The time zone the record is created in; the live default is the current one.
    public init(id: String, uuid: UUID = UUID(), effectiveDate: Date, timezone: TimeZone = .current) {
        self.id = id
        self.uuid = uuid
        self.effectiveDate = effectiveDate
        self.deletedDate = nil
        self.previousVersionUUIDs = []
        self.nextVersionUUIDs = []
        self.createdDate = nil
        self.updatedDate = nil
        self.schemaVersion = nil
        self.remoteID = nil
        self.groupIdentifier = nil
        self.tags = nil
        self.source = nil
        self.userInfo = nil
        self.asset = nil
        self.notes = nil
        self.timezone = timezone
    }

    /// The shared fields' keys; the synthesized encoder writes them into the entity's own (flat) JSON object,
    /// in this order, `nil` fields left out.
    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, uuid, effectiveDate, deletedDate, previousVersionUUIDs, nextVersionUUIDs, createdDate
        case updatedDate, schemaVersion, remoteID, groupIdentifier, tags, source, userInfo, asset, notes, timezone
    }

    /// Reads the shared fields from a flat entity object. Dates may be ISO 8601 text or CareKit's seconds since
    /// 2001-01-01. A missing `uuid`, `effectiveDate` or `timezone` comes from the decoder's
    /// ``CareDecodingDefaults`` when it has them; missing version links read as empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = decoder.careDecodingDefaults
        id = try container.decode(String.self, forKey: .id)
        if let defaults, !container.contains(.uuid) {
            uuid = defaults.makeUUID()
        } else {
            uuid = try container.decode(UUID.self, forKey: .uuid)
        }
        if let defaults, !container.contains(.effectiveDate) {
            effectiveDate = defaults.now()
        } else {
            effectiveDate = try container.decodeCareDate(forKey: .effectiveDate)
        }
        if let defaults, !container.contains(.timezone) {
            timezone = defaults.timeZone
        } else {
            timezone = try container.decode(TimeZone.self, forKey: .timezone)
        }
        deletedDate = try container.decodeCareDateIfPresent(forKey: .deletedDate)
        previousVersionUUIDs = try container.decodeIfPresent([UUID].self, forKey: .previousVersionUUIDs) ?? []
        nextVersionUUIDs = try container.decodeIfPresent([UUID].self, forKey: .nextVersionUUIDs) ?? []
        createdDate = try container.decodeCareDateIfPresent(forKey: .createdDate)
        updatedDate = try container.decodeCareDateIfPresent(forKey: .updatedDate)
        schemaVersion = try container.decodeIfPresent(SemanticVersion.self, forKey: .schemaVersion)
        remoteID = try container.decodeIfPresent(String.self, forKey: .remoteID)
        groupIdentifier = try container.decodeIfPresent(String.self, forKey: .groupIdentifier)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        userInfo = try container.decodeIfPresent([String: String].self, forKey: .userInfo)
        asset = try container.decodeIfPresent(String.self, forKey: .asset)
        notes = try container.decodeIfPresent([Note].self, forKey: .notes)
    }

}
