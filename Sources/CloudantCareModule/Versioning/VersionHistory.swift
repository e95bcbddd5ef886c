public import Foundation

/// The versions of care entities and CareKit's rules over them, as pure values: no storage involved.
///
/// Versions form a graph through `previousVersionUUIDs`/`nextVersionUUIDs`. A *tip* is a version nothing
/// replaces; more than one tip for an id is an unresolved conflict (concurrent versions).
///
/// ```swift
/// var history = VersionHistory<CarePlan>()
/// let first = try history.add(plan)
/// var edited = first
/// edited.title = "Diabetes (revised)"
/// let second = try history.update(edited, uuid: ids.next(), now: clock.now)
/// history.inEffect(during: DateInterval(start: jan1, end: jan2))  // the version effective then
/// ```
public struct VersionHistory<Entity: VersionedEntity>: Sendable {
    /// Every version, in the order it joined the history.
    public private(set) var versions: [Entity]
    // Lookups that keep reading a history of n versions O(n): a fetch builds one from thousands of outcomes.
    private var positionByUUID: [UUID: Int]
    private var positionsByID: [String: [Int]]
    /// The uuids of the versions that name a uuid as previous, whether or not that uuid is present yet.
    private var successorsByUUID: [UUID: [UUID]]

    /// Creates a history from versions as stored (for example, read back from the store). A version whose uuid
    /// is already present is ignored, so a list with repeats reads as if each version were given once.
    public init(_ versions: [Entity] = []) {
        self.versions = []
        self.positionByUUID = [:]
        self.positionsByID = [:]
        self.successorsByUUID = [:]
        for version in versions { insert(version) }
    }

    /// The version with `uuid`, if present.
    public func version(uuid: UUID) -> Entity? {
        positionByUUID[uuid].map { versions[$0] }
    }

    /// Every version of the object with `id`, in the order they joined the history.
    public func versions(id: String) -> [Entity] {
        (positionsByID[id] ?? []).map { versions[$0] }
    }

    /// The versions of `id` that no other version replaces; more than one means concurrent versions.
    public func tips(id: String) -> [Entity] {
        versions(id: id).filter { version in
            !version.nextVersionUUIDs.contains { positionByUUID[$0] != nil }
        }
    }

    /// The ids with more than one tip, in the order their first version joined the history.
    public var conflictedIDs: [String] {
        var seen = Set<String>()
        return versions.compactMap { version in
            guard seen.insert(version.id).inserted, tips(id: version.id).count > 1 else { return nil }
            return version.id
        }
    }

    /// The versions in the history that replace `version`.
    public func next(of version: Entity) -> [Entity] {
        let stored = self.version(uuid: version.uuid) ?? version
        return stored.nextVersionUUIDs.compactMap { self.version(uuid: $0) }
    }

    /// Whether any version of `id` is a tombstone.
    public func isDeleted(id: String) -> Bool {
        versions(id: id).contains { $0.deletedDate != nil }
    }

    /// Adds `version` exactly as given (its uuid and links), as sync and imports do. Links the other direction
    /// too: versions it names as previous gain it as next, and versions naming it as previous are its next.
    ///
    /// - Returns: `false` when a version with that uuid is already present; the history is unchanged, so merging
    ///   the same versions again, in any order, gives the same history.
    @discardableResult
    public mutating func insert(_ version: Entity) -> Bool {
        guard positionByUUID[version.uuid] == nil else { return false }
        var version = version
        for successor in successorsByUUID[version.uuid] ?? [] where !version.nextVersionUUIDs.contains(successor) {
            version.nextVersionUUIDs.append(successor)
        }
        positionByUUID[version.uuid] = versions.count
        positionsByID[version.id, default: []].append(versions.count)
        versions.append(version)
        for previous in version.previousVersionUUIDs {
            successorsByUUID[previous, default: []].append(version.uuid)
            guard let position = positionByUUID[previous] else { continue }
            if !versions[position].nextVersionUUIDs.contains(version.uuid) {
                versions[position].nextVersionUUIDs.append(version.uuid)
            }
        }
        return true
    }
}

extension VersionHistory {
    /// The tips of every id that are not tombstones: the live versions (one per object unless versions are
    /// concurrent).
    public var liveTips: [Entity] {
        var seen = Set<String>()
        var result: [Entity] = []
        for version in versions where seen.insert(version.id).inserted {
            result += tips(id: version.id).filter { $0.deletedDate == nil }
        }
        return result
    }
}
