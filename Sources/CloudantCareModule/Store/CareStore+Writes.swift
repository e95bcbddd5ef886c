internal import Foundation
internal import CloudantCore
internal import CloudantStore

extension CareStore {
    /// Adds the first version of each object, as given (its uuid included), in one batch; with `history`, also
    /// stores those versions exactly as given (a CareKit history export, see ``importVersions(_:)``), all in
    /// one transaction.
    ///
    /// `createdDate` and `updatedDate` are stamped with now (a given `createdDate` is kept), `schemaVersion`
    /// with ``SemanticVersion/careStore``, and version links are cleared.
    ///
    /// ```swift
    /// let stored = try await care.add([CarePlan(id: "diabetes", title: "Diabetes", patientUUID: nil)])
    /// try await care.add([newTask], importing: exportedHistoryOfOtherTasks)
    /// ```
    /// - Returns: The versions added from `entities` (the imported versions are stored as given).
    /// - Throws: `CloudantError.Code.duplicateVersion` when an object with that id or uuid exists
    ///   (deleted ones included) or appears twice in the batch; for outcomes
    ///   `CloudantError.Code.orphanedOutcome` and `CloudantError.Code.duplicateOutcome`;
    ///   for tasks `CloudantError.Code.invalidSchedule`; for `history` the codes of
    ///   ``importVersions(_:)``. Nothing is written when one item fails; an error's `itemIndex` is a position in
    ///   `history + entities` (the imported versions first).
    @discardableResult
    public func add<Entity: CareStorable>(_ entities: [Entity], importing history: [Entity] = []) async throws
        -> [Entity]
    {
        try await write(entities, as: .add, importing: history).written
    }

    /// Adds a new version of each object that replaces its current versions (a merge version when versions
    /// are concurrent). The store mints the uuid and stamps `updatedDate`; `effectiveDate` is kept as given.
    /// With `history`, those versions are first stored exactly as given (see ``importVersions(_:)``), in the
    /// same transaction, so an update of an object whose history is imported follows the imported versions.
    ///
    /// ```swift
    /// var evening = meds
    /// evening.schedule = try .dailyAtTime(hour: 20, minutes: 0, start: jan11, end: nil, text: nil)
    /// evening.effectiveDate = jan11
    /// try await care.update([evening])
    /// ```
    /// - Throws: `CloudantError.Code.notFound`, `CloudantError.Code.entityDeleted`,
    ///   for tasks `CloudantError.Code.updateWouldHideOutcomes` and
    ///   `CloudantError.Code.invalidSchedule`, for outcomes the codes of ``add(_:importing:)``, for
    ///   `history` the codes of ``importVersions(_:)``. Nothing is written when one item fails; an error's
    ///   `itemIndex` is a position in `history + entities` (the imported versions first).
    @discardableResult
    public func update<Entity: CareStorable>(_ entities: [Entity], importing history: [Entity] = []) async throws
        -> [Entity]
    {
        try await write(entities, as: .update, importing: history).written
    }

    /// Adds a tombstone version of each object: from its `effectiveDate` on, no version is in effect.
    ///
    /// - Throws: `CloudantError.Code.notFound` or `CloudantError.Code.entityDeleted`.
    @discardableResult
    public func delete<Entity: CareStorable>(_ entities: [Entity]) async throws -> [Entity] {
        try await write(entities, as: .delete, importing: []).written
    }

    /// Stores versions exactly as given (uuid, previous versions, dates), as importing a CareKit history does, in
    /// one transaction. The versions may come in any order; versions already stored are skipped, so importing
    /// the same history twice changes nothing.
    ///
    /// The batch must join what is stored as one history per object: every previous version a new version names
    /// is in the batch or stored for that object, the links do not loop, and no object is left with two current
    /// versions that continue one version (import a merge version naming both instead).
    ///
    /// ```swift
    /// let export: [CareTask] = try decoder.decode([CareTask].self, from: careKitJSON)  // any order
    /// let new = try await care.importVersions(export)
    /// let january = try await care.fetchInEffect(CareTask.self, at: jan15)
    /// ```
    /// - Returns: The versions that were new.
    /// - Throws: `CloudantError.Code.brokenVersionChain` (its `CloudantError.underlying`
    ///   is a ``VersionChainError`` naming the version and the link) for a broken history;
    ///   `CloudantError.Code.duplicateVersion` for a second first version of a stored object or a
    ///   uuid another object uses; `CloudantError.Code.invalidSchedule` for a task whose schedule
    ///   is invalid. Errors name the object (`documentID`) and the position in the batch (`itemIndex`); nothing is
    ///   written when one version fails.
    @discardableResult
    public func importVersions<Entity: CareStorable>(_ versions: [Entity]) async throws -> [Entity] {
        try await write([], as: .add, importing: versions).imported
    }

    private enum WriteMode { case add, update, delete }

    /// Imports `versions`, then adds, updates or deletes `entities` on top of them, and writes both in one
    /// transaction. Errors count positions in `versions + entities`.
    private func write<Entity: CareStorable>(_ entities: [Entity], as mode: WriteMode, importing versions: [Entity])
        async throws -> (imported: [Entity], written: [Entity])
    {
        var history = try await history(Entity.self, ids: (versions + entities).map(\.id))
        let imported = try history.importVersions(versions)
        for version in imported {
            guard let task = version as? any SchedulableTask else { continue }
            try Self.itemError(versions.firstIndex { $0.uuid == version.uuid } ?? 0) {
                try task.schedule.validate(in: timeZone)
            }
        }
        // The history holds this batch's ids only: a new uuid must not be another kind's or object's.
        let unseen = mode == .add ? entities.map(\.uuid).filter { history.version(uuid: $0) == nil } : []
        if let taken = try await storedUUID(among: imported.map(\.uuid) + unseen) {
            let batch = versions + entities
            let index = batch.firstIndex { $0.uuid == taken }
            throw CloudantError(
                .duplicateVersion, "A version with this uuid is already stored; give the new object a fresh uuid.",
                context: .init(documentID: index.map { batch[$0].id }, field: "uuid", itemIndex: index))
        }
        do {
            let written: [Entity]
            switch mode {
            case .add: written = try addRoots(entities, to: &history)
            case .update, .delete:
                written = try await appendVersions(entities, to: &history, deleting: mode == .delete)
            }
            try await write(written, checkingAgainst: history, importing: imported)
            return (imported, written)
        } catch let error as CloudantError {
            throw error.adding { $0.itemIndex = $0.itemIndex.map { $0 + versions.count } }
        }
    }

    private func addRoots<Entity: CareStorable>(_ entities: [Entity], to history: inout VersionHistory<Entity>)
        throws -> [Entity]
    {
        let stamp = now()
        var added: [Entity] = []
        for (index, entity) in entities.enumerated() {
            var version = entity
            version.createdDate = version.createdDate ?? stamp
            version.updatedDate = stamp
            version.deletedDate = nil
            version.schemaVersion = .careStore
            try Self.itemError(index) { _ = try history.add(version) }
            if let stored = history.version(uuid: version.uuid) { added.append(stored) }
        }
        return added
    }

    private func appendVersions<Entity: CareStorable>(
        _ entities: [Entity], to history: inout VersionHistory<Entity>, deleting: Bool
    ) async throws -> [Entity] {
        let stamp = now()
        var appended: [Entity] = []
        for (index, entity) in entities.enumerated() {
            var candidate = entity
            candidate.schemaVersion = .careStore
            let uuid = makeUUID()
            let current = history
            try await itemError(index) {
                if !deleting { try await checkTaskUpdate(candidate, history: current) }
            }
            let version = try Self.itemError(index) {
                deleting
                    ? try history.delete(candidate, uuid: uuid, now: stamp)
                    : try history.update(candidate, uuid: uuid, now: stamp)
            }
            appended.append(version)
        }
        return appended
    }

    /// Runs the outcome guards (on live versions) for `versions`, and writes them with this store's stamp, with
    /// `imported` (stored as given, without guards) in the same transaction.
    private func write<Entity: CareStorable>(
        _ versions: [Entity], checkingAgainst history: VersionHistory<Entity>, importing imported: [Entity]
    ) async throws {
        var events: [UUID: ScheduleEvent] = [:]
        let pending = versions.compactMap { $0 as? Outcome }
        let cache = OutcomeCheckCache()
        for (index, version) in versions.enumerated() {
            if let task = version as? any SchedulableTask { try Self.itemError(index) { try task.schedule.validate(in: timeZone) } }
            guard let outcome = version as? Outcome else { continue }
            do {
                events[outcome.uuid] = try await checkOutcome(outcome, pending: pending, cache: cache)
            } catch let error as CloudantError {
                throw error.adding { $0.itemIndex = index }
            }
        }
        let state = try await clock()
        try await writeDocuments(imported + versions, knowledge: state.vector, author: state.process, events: events)
    }

    /// Writes version documents; an existing uuid is skipped (the same version was stored before).
    func writeDocuments<Entity: CareStorable>(
        _ versions: [Entity], knowledge: KnowledgeVector, author: UUID?, events: [UUID: ScheduleEvent] = [:],
        serverTime: Date? = nil
    ) async throws {
        guard !versions.isEmpty else { return }
        var events = events
        let unplaced = versions.compactMap { $0 as? Outcome }.filter { events[$0.uuid] == nil }
        if !unplaced.isEmpty { events.merge(try await outcomeEvents(unplaced)) { given, _ in given } }
        let documents = try versions.map { version in
            JSONValue.object(
                try CareDocument.make(
                    version, knowledge: knowledge, author: author, event: events[version.uuid], serverTime: serverTime))
        }
        let results = try await store.bulkDocs(documents)
        for (index, result) in results.enumerated() {
            guard let error = result.error, error.code != .conflict else { continue }
            throw error.adding { $0.itemIndex = index }
        }
    }

    static func itemError<T>(_ index: Int, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as CloudantError { throw error.adding { $0.itemIndex = index } }
    }

    func itemError<T>(_ index: Int, _ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as CloudantError { throw error.adding { $0.itemIndex = index } }
    }
}
