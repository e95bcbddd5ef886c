internal import CloudantCore
internal import Foundation

// Importing a history: versions given exactly (uuid, links, dates), in any order, that must join the versions
// already present as one history per object. Checked as a whole before anything is added, so a batch is taken
// entirely or not at all.
extension VersionHistory {
    /// Adds exact versions, as a CareKit history export gives them: each keeps its uuid, previous versions and
    /// dates, and the batch may list them in any order. A version already present is skipped, so importing the
    /// same history again adds nothing.
    ///
    /// Each new version's previous versions must be in the batch or already present for the same object; the
    /// links must not loop; and the import must not leave an object with more current versions (tips) than it
    /// had, or more than one: two versions that both continue one version are refused unless a merge version in
    /// the batch names them both.
    ///
    /// ```swift
    /// var history = try await care.history(CareTask.self, ids: ["meds"])
    /// let added = try history.importVersions(exportedVersions)   // the versions that were new
    /// ```
    ///
    /// - Returns: The versions that were new, in batch order.
    /// - Throws: `CloudantError.Code.brokenVersionChain` with a ``VersionChainError`` for a missing
    ///   previous version, a previous version of another object, a cycle or a fork;
    ///   `CloudantError.Code.duplicateVersion` for a second first version of an object that has a
    ///   history, or for one uuid used twice with different contents (in the batch, or by a present version of
    ///   another object). Every error names the object (`documentID`) and the batch position (`itemIndex`); the
    ///   history is unchanged when it throws.
    @discardableResult
    public mutating func importVersions(_ batch: [Entity]) throws -> [Entity] {
        let fresh = try freshVersions(batch)
        let byUUID = Dictionary(fresh.map { ($0.entity.uuid, $0) }, uniquingKeysWith: { first, _ in first })
        try checkLinks(fresh, byUUID: byUUID)
        try checkAcyclic(fresh, byUUID: byUUID)
        var extended = self
        for item in fresh { extended.insert(item.entity) }
        try extended.checkTips(comparedWith: self, fresh: fresh)
        self = extended
        return fresh.map(\.entity)
    }

    /// The batch's versions that are not present yet, with their batch positions; a repeat of a present version
    /// (or of an earlier batch item) is skipped when it is the same version.
    private func freshVersions(_ batch: [Entity]) throws -> [(index: Int, entity: Entity)] {
        var fresh: [(index: Int, entity: Entity)] = []
        var batchByUUID: [UUID: Entity] = [:]
        for (index, entity) in batch.enumerated() {
            if let present = version(uuid: entity.uuid) ?? batchByUUID[entity.uuid] {
                guard present.id == entity.id else {
                    throw CloudantError(
                        .duplicateVersion,
                        "Version \(entity.uuid.uuidString) is already a version of another object; give this "
                            + "version its own uuid.",
                        context: .init(documentID: entity.id, field: "uuid", itemIndex: index))
                }
                guard batchByUUID[entity.uuid] == nil || Self.sameVersion(present, entity) else {
                    throw CloudantError(
                        .duplicateVersion,
                        "Version \(entity.uuid.uuidString) appears twice in the batch with different contents; "
                            + "keep one of them.",
                        context: .init(documentID: entity.id, field: "uuid", itemIndex: index))
                }
                continue
            }
            batchByUUID[entity.uuid] = entity
            fresh.append((index, entity))
        }
        return fresh
    }

    /// Every previous version a new version names is in the batch or present, and belongs to the same object.
    private func checkLinks(_ fresh: [(index: Int, entity: Entity)], byUUID: [UUID: (index: Int, entity: Entity)])
        throws
    {
        for (index, entity) in fresh {
            for previous in entity.previousVersionUUIDs {
                guard let owner = byUUID[previous]?.entity.id ?? version(uuid: previous)?.id else {
                    throw Self.broken(
                        entity, index, .missingPrevious(previous),
                        "Version \(entity.uuid.uuidString) follows version \(previous.uuidString), which is neither "
                            + "in the batch nor stored for this object; import the whole history.")
                }
                guard owner == entity.id else {
                    throw Self.broken(
                        entity, index, .previousOfAnotherObject(previous),
                        "Version \(entity.uuid.uuidString) follows version \(previous.uuidString), a version of "
                            + "another object; versions of one object share its id.")
                }
            }
        }
    }

    /// Following previous versions from any new version never comes back to it.
    private func checkAcyclic(_ fresh: [(index: Int, entity: Entity)], byUUID: [UUID: (index: Int, entity: Entity)])
        throws
    {
        // Present versions were acyclic before, so a cycle passes through a new version; walk only those.
        var marks: [UUID: WalkMark] = [:]
        for start in fresh where marks[start.entity.uuid] == nil {
            var stack: [(uuid: UUID, previous: [UUID])] = [(start.entity.uuid, start.entity.previousVersionUUIDs)]
            marks[start.entity.uuid] = .visiting
            while let top = stack.last {
                guard let next = top.previous.first else {
                    marks[top.uuid] = .done
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].previous.removeFirst()
                let links = byUUID[next]?.entity.previousVersionUUIDs ?? version(uuid: next)?.previousVersionUUIDs ?? []
                switch marks[next] {
                case .visiting:
                    let (index, entity) = byUUID[next] ?? start
                    throw Self.broken(
                        entity, index, .cycle,
                        "Version \(entity.uuid.uuidString) is its own previous version through the chain of "
                            + "previousVersionUUIDs; remove the link that loops back.")
                case .done:
                    continue
                case nil:
                    marks[next] = .visiting
                    stack.append((next, links))
                }
            }
        }
    }

    /// No object touched by the import has more current versions than before, or more than one.
    private func checkTips(comparedWith before: Self, fresh: [(index: Int, entity: Entity)]) throws {
        let positions = Dictionary(fresh.map { ($0.entity.uuid, $0.index) }, uniquingKeysWith: { first, _ in first })
        var checked = Set<String>()
        for (index, entity) in fresh where checked.insert(entity.id).inserted {
            let tips = tips(id: entity.id)
            guard tips.count > max(1, before.tips(id: entity.id).count) else { continue }
            // A present or new version continued twice, once at least by a new version: a fork.
            for version in versions(id: entity.id) {
                let continuations = next(of: version)
                // The new continuation latest in the batch is the one named, beside another continuation.
                guard continuations.count > 1,
                    let newer = continuations.filter({ positions[$0.uuid] != nil })
                        .max(by: { (positions[$0.uuid] ?? 0) < (positions[$1.uuid] ?? 0) }),
                    let other = continuations.first(where: { $0.uuid != newer.uuid })
                else { continue }
                throw Self.broken(
                    newer, positions[newer.uuid] ?? index, .fork(tail: version.uuid, other: other.uuid),
                    "Versions \(newer.uuid.uuidString) and \(other.uuid.uuidString) both follow version "
                        + "\(version.uuid.uuidString), so the object would have two current versions; chain one "
                        + "after the other, or add a merge version that names both.")
            }
            // Otherwise a second first version.
            let roots = versions(id: entity.id).filter { $0.previousVersionUUIDs.isEmpty }
            let newRoot = roots.first { positions[$0.uuid] != nil } ?? entity
            let other = roots.first { $0.uuid != newRoot.uuid } ?? tips.first { $0.uuid != newRoot.uuid } ?? newRoot
            let problem = VersionChainError(
                id: entity.id, uuid: newRoot.uuid, problem: .secondFirstVersion(other: other.uuid))
            let context = CloudantError.Context(
                documentID: entity.id, field: "previousVersionUUIDs", itemIndex: positions[newRoot.uuid] ?? index)
            if before.versions(id: entity.id).isEmpty {
                throw CloudantError(
                    .brokenVersionChain,
                    "Versions \(newRoot.uuid.uuidString) and \(other.uuid.uuidString) are both first versions of "
                        + "the object; name the earlier one in the later one's previousVersionUUIDs.",
                    context: context, underlying: problem)
            }
            throw CloudantError(
                .duplicateVersion,
                "An object with this id exists; to import a later version, name the version it follows in "
                    + "previousVersionUUIDs, or give the new object another id.",
                context: context, underlying: problem)
        }
    }

    private static func broken(_ entity: Entity, _ index: Int, _ problem: VersionChainError.Problem, _ message: String)
        -> CloudantError
    {
        CloudantError(
            .brokenVersionChain, message,
            context: .init(documentID: entity.id, field: "previousVersionUUIDs", itemIndex: index),
            underlying: VersionChainError(id: entity.id, uuid: entity.uuid, problem: problem))
    }

    /// Two copies of one version: equal once the derived `nextVersionUUIDs` links are set aside.
    private static func sameVersion(_ lhs: Entity, _ rhs: Entity) -> Bool {
        var (left, right) = (lhs, rhs)
        left.nextVersionUUIDs = []
        right.nextVersionUUIDs = []
        return left == right
    }
}

/// Where a depth-first walk over version links stands with a version.
private enum WalkMark { case visiting, done }
