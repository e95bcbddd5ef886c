/// How a versioned entity is written as CareKit writes it: one flat JSON object holding the ``VersionedFields``
/// beside the entity's own members.
///
/// Every kind reads and writes the shared fields the same way, from and into the same object, so that part is
/// done here once; a kind states only its own members, keyed by its `CodingKeys`, with its own CareKit defaults
/// (a missing name reads as empty, missing values as none).
protocol FlatVersionedCoding: VersionedEntity {
    /// The keys of the entity's own members.
    associatedtype MemberKeys: CodingKey
    /// Creates the entity from its shared fields and the same object's own members.
    init(versioned: VersionedFields, members: KeyedDecodingContainer<MemberKeys>) throws
    /// Writes the entity's own members into the object the shared fields were written into.
    func encodeMembers(to members: inout KeyedEncodingContainer<MemberKeys>) throws
}

extension FlatVersionedCoding {
    /// Reads CareKit's flat JSON (see ``VersionedFields/init(from:)`` for dates and defaults).
    public init(from decoder: any Decoder) throws {
        try self.init(versioned: VersionedFields(from: decoder), members: decoder.container(keyedBy: MemberKeys.self))
    }

    /// Writes CareKit's flat JSON.
    public func encode(to encoder: any Encoder) throws {
        try versioned.encode(to: encoder)
        var members = encoder.container(keyedBy: MemberKeys.self)
        try encodeMembers(to: &members)
    }
}
