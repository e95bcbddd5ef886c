public import CloudantCareModule
public import CloudantOnly
internal import CloudantCore
internal import CloudantStore
internal import Foundation

// Converting the care documents the original OTFCloudantStore wrote (its `OCK…` documents with
// `entityType`, described with their sources in Tests/Fixtures/OTFDocuments/README.md) into this module's version documents.
//
// Why convert instead of reading them in place: every care read, the event-date index of outcomes, uniqueness
// and knowledge-vector sync rest on one document per version at `_id` = its uuid, stamped with the knowledge
// it was written with. The original kept one document per entity at its developer id (`<taskUUID>_<n>` for
// outcomes), updated in place, with no stamp and no event dates; reading both layouts everywhere would put a
// second format on every hot path, and unstamped versions would never reach a peer.

/// Converting the care documents the original OTFCloudantStore wrote into this store's version documents.
extension CareStore {
    /// The original's kind names and this module's, in the order they are converted (parents first, so an
    /// outcome's task is converted before the outcome, which takes its event dates from it).
    public static let otfKindNames: [(original: String, kind: String)] = [
        ("OCKPatient", Patient.careKindName), ("OCKCarePlan", CarePlan.careKindName),
        ("OCKContact", Contact.careKindName), ("OCKTask", CareTask.careKindName), ("OCKOutcome", Outcome.careKindName),
    ]

    /// Converts every care document the original OTFCloudantStore wrote (`entityType` or `entity_type`
    /// `OCKPatient`, `OCKCarePlan`, `OCKContact`, `OCKTask`, `OCKOutcome`) into a version document of this
    /// store, one transaction per batch; in a dry run, reports what it would do and writes nothing.
    ///
    /// Each converted version keeps the original's uuid (so care plans, tasks and outcomes keep pointing at
    /// each other), its dates, ids and every field; `userInfo["revId"]`, a stale copy of the revision, is
    /// dropped. It is stamped with this store's knowledge, so peers receive it as news. Where it lives:
    /// - a document whose id is already its uuid (a task whose id is its uuid) is rewritten in place, as its
    ///   next revision;
    /// - any other moves to its uuid: the new document names the old in `migratedFrom`, and the old id gets a
    ///   deleted revision naming the new in `migratedTo`, in the same transaction, so both histories stay and
    ///   replicating the change moves it on a server too.
    ///
    /// Running it again converts only what is new (a document converted before is no longer the original's
    /// kind). Apps of the original that still write to the database stop seeing converted documents: convert
    /// when they are retired, or convert a copy.
    ///
    /// ```swift
    /// let preview = try await care.migrateOTFDocuments(dryRun: true)
    /// print(preview.converted, preview.skipped)
    /// try await care.migrateOTFDocuments()
    /// ```
    /// - Returns: What was converted, moved, skipped (with reasons) and found conflicted.
    /// - Throws: `CloudantError` when the store cannot be read or a transaction fails; a
    ///   document that does not convert is skipped and reported instead, and nothing of it changes.
    @discardableResult
    public func migrateOTFDocuments(dryRun: Bool = false, batchSize: Int = 200) async throws -> OTFMigrationReport {
        var report = OTFMigrationReport(dryRun: dryRun)
        try await migrateOTF(Patient.self, from: "OCKPatient", dryRun: dryRun, batchSize: batchSize, into: &report)
        try await migrateOTF(CarePlan.self, from: "OCKCarePlan", dryRun: dryRun, batchSize: batchSize, into: &report)
        try await migrateOTF(Contact.self, from: "OCKContact", dryRun: dryRun, batchSize: batchSize, into: &report)
        try await migrateOTF(CareTask.self, from: "OCKTask", dryRun: dryRun, batchSize: batchSize, into: &report)
        try await migrateOTF(Outcome.self, from: "OCKOutcome", dryRun: dryRun, batchSize: batchSize, into: &report)
        if !dryRun, report.convertedCount > 0 { try await incrementClock() }
        return report
    }

    private func migrateOTF<Entity: CareStorable>(
        _ type: Entity.Type, from original: String, dryRun: Bool, batchSize: Int, into report: inout OTFMigrationReport
    ) async throws {
        for key in OTFDocuments.kindKeys {
            let ids = try await OTFDocuments.ids(of: original, key: key, in: store)
            for batch in OTFDocuments.batches(ids, of: batchSize) {
                let page = try await OTFDocuments.documents(ids: batch, in: store)
                try await convertOTFPage(page, as: type, from: original, dryRun: dryRun, into: &report)
            }
        }
    }

    /// One page: decode, place, and write the versions with the old documents' tombstones in one transaction.
    private func convertOTFPage<Entity: CareStorable>(
        _ page: [JSONObject], as type: Entity.Type, from original: String, dryRun: Bool = false,
        into report: inout OTFMigrationReport
    ) async throws {
        var planned: [PlannedMove<Entity>] = []
        for document in page {
            guard let id = document["_id"]?.stringValue, let rev = document["_rev"]?.stringValue else { continue }
            do {
                let entity = try Self.otfEntity(type, from: document, id: id)
                planned.append(PlannedMove(id: id, rev: rev, entity: entity, conflicted: OTFDocuments.hasConflicts(document)))
            } catch {
                report.skipped.append(.init(id: id, entityType: original, reason: "It does not decode as a \(Entity.careKindName): \(error)"))
            }
        }
        // A target id another document holds: the same version converted elsewhere (a peer sent it) only needs
        // the old document's tombstone; anything else is left alone.
        let targets = planned.filter { !$0.inPlace }.map(\.target)
        let byTarget = try MangoSelector(.object(["_id": ["$in": .array(targets.map { .string($0) })]]))
        let existing = try await store.find(FindRequest(selector: byTarget, limit: Int.max)).docs
        let holders = Dictionary(existing.compactMap { doc in doc["_id"]?.stringValue.map { ($0, doc) } }) { first, _ in first }
        planned = planned.compactMap { move in
            guard !move.inPlace, let holder = holders[move.target] else { return move }
            let from = holder["migratedFrom"]
            guard from?["_id"]?.stringValue == move.id else {
                report.skipped.append(.init(
                    id: move.id, entityType: original,
                    reason: "Its uuid \(move.target) is the id of another document; give one of them a new uuid."))
                return nil
            }
            guard from?["_rev"]?.stringValue == move.rev else {
                // A losing revision of a document converted before, surfaced once the winner was converted.
                report.skipped.append(.init(
                    id: move.id, entityType: original,
                    reason: "It is a conflicting revision of a document converted before (to \(move.target)); "
                        + "resolve the conflict by hand, then delete this revision."))
                return nil
            }
            var tombstoneOnly = move
            tombstoneOnly.versionExists = true
            return tombstoneOnly
        }
        if !dryRun { planned = try await write(planned, from: original, into: &report) }
        for move in planned {
            report.converted[original, default: 0] += 1
            if move.inPlace { report.rewrittenInPlace += 1 } else { report.moved += 1 }
            if move.conflicted { report.conflicted.append(move.id) }
        }
    }

    /// Writes the moves in one transaction; a move whose write fails is reported and left out. Returns the
    /// moves written.
    private func write<Entity: CareStorable>(
        _ moves: [PlannedMove<Entity>], from original: String, into report: inout OTFMigrationReport
    ) async throws -> [PlannedMove<Entity>] {
        let versions = try await versionDocuments(for: moves.map(\.entity))
        let groups = zip(moves, versions).map { move, version in move.documents(version: version) }
        let failures = try await OTFDocuments.write(groups, in: store)
        for failure in failures {
            report.skipped.append(.init(id: moves[failure.group].id, entityType: original, reason: "Its write failed: \(failure.error)"))
        }
        let failed = Set(failures.map(\.group))
        return moves.indices.filter { !failed.contains($0) }.map { moves[$0] }
    }

    /// The entity a document of the original decodes as: the original's body without its bookkeeping, a
    /// missing uuid derived from the document's id (so converting twice gives the same version).
    static func otfEntity<Entity: CareStorable>(_ type: Entity.Type, from document: JSONObject, id: String) throws -> Entity {
        let decoder = CloudantJSONCoding.makeDecoder()
        decoder.userInfo[CareDecodingDefaults.userInfoKey] = CareDecodingDefaults(
            makeUUID: { OTFDocuments.uuid(named: id) }, now: { Date(timeIntervalSince1970: 0) }, timeZone: .current)
        let json = JSONValue.object(OTFDocuments.body(of: document)).jsonData()
        return try decoder.decode(type, from: json)
    }
}

/// Where one converted version goes.
private struct PlannedMove<Entity: CareStorable>: Sendable {
    let id: String
    let rev: String
    let entity: Entity
    let conflicted: Bool
    /// The converted version is already stored (a peer sent it); only the tombstone is written.
    var versionExists = false

    init(id: String, rev: String, entity: Entity, conflicted: Bool) {
        self.id = id
        self.rev = rev
        self.entity = entity
        self.conflicted = conflicted
    }

    /// A version document's id: its uuid (`CareStore/versionDocuments(for:)`).
    var target: String { entity.uuid.uuidString }
    var inPlace: Bool { target == id }

    /// The version document (at the old id with its revision, or new at its uuid) and the old id's tombstone.
    func documents(version: JSONObject) -> [JSONObject] {
        var version = version
        version["migratedFrom"] = ["_id": .string(id), "_rev": .string(rev), "format": "OTFCloudantStore"]
        if inPlace {
            version["_rev"] = .string(rev)
            return [version]
        }
        let tombstone: JSONObject = ["_id": .string(id), "_rev": .string(rev), "_deleted": true, "migratedTo": .string(target)]
        return versionExists ? [tombstone] : [version, tombstone]
    }
}
