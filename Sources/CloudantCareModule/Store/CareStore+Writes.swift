internal import Foundation
internal import CloudantCore
internal import CloudantStore

extension CareStore {
    /// Adds the first version of each object, as given (its uuid included), in one batch.
    ///
    /// `createdDate` and `updatedDate` are stamped with now (a given `createdDate` is kept), `schemaVersion`
    /// with ``SemanticVersion/careStore``, and version links are cleared.
    ///
    /// ```swift
    /// let stored = try await care.add([CarePlan(id: "diabetes", title: "Diabetes", patientUUID: nil)])
    /// ```
    /// - Throws: ``CloudantCore/CloudantError/Code/duplicateVersion`` when an object with that id or uuid exists
    ///   (deleted ones included) or appears twice in the batch; for outcomes
    ///   ``CloudantCore/CloudantError/Code/orphanedOutcome`` and ``CloudantCore/CloudantError/Code/duplicateOutcome``;
    ///   for tasks ``CloudantCore/CloudantError/Code/invalidSchedule``. Nothing is written when one item fails.
    @discardableResult
    public func add<Entity: CareStorable>(_ entities: [Entity]) async throws -> [Entity] {
        var history = try await history(Entity.self, ids: entities.map(\.id))
        try await checkUnusedUUIDs(entities.map(\.uuid).filter { history.version(uuid: $0) == nil })
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
        try await write(added, checkingAgainst: history)
        return added
    }

    /// Adds a new version of each object that replaces its current versions (a merge version when versions
    /// are concurrent). The store mints the uuid and stamps `updatedDate`; `effectiveDate` is kept as given.
    ///
    /// ```swift
    /// var evening = meds
    /// evening.schedule = try .dailyAtTime(hour: 20, minutes: 0, start: jan11, end: nil, text: nil)
    /// evening.effectiveDate = jan11
    /// try await care.update([evening])
    /// ```
    /// - Throws: ``CloudantCore/CloudantError/Code/notFound``, ``CloudantCore/CloudantError/Code/entityDeleted``,
    ///   for tasks ``CloudantCore/CloudantError/Code/updateWouldHideOutcomes`` and
    ///   ``CloudantCore/CloudantError/Code/invalidSchedule``, for outcomes the codes of ``add(_:)``.
    @discardableResult
    public func update<Entity: CareStorable>(_ entities: [Entity]) async throws -> [Entity] {
        try await appendVersions(entities, deleting: false)
    }

    /// Adds a tombstone version of each object: from its `effectiveDate` on, no version is in effect.
    ///
    /// - Throws: ``CloudantCore/CloudantError/Code/notFound`` or ``CloudantCore/CloudantError/Code/entityDeleted``.
    @discardableResult
    public func delete<Entity: CareStorable>(_ entities: [Entity]) async throws -> [Entity] {
        try await appendVersions(entities, deleting: true)
    }

    /// Stores versions exactly as given (uuid, previous versions, dates), as importing a CareKit history does.
    /// Versions already stored are skipped, so importing the same history twice changes nothing.
    ///
    /// - Returns: The versions that were new.
    /// - Throws: ``CloudantCore/CloudantError/Code/invalidSchedule`` for a task whose schedule is invalid.
    @discardableResult
    public func importVersions<Entity: CareStorable>(_ entities: [Entity]) async throws -> [Entity] {
        var history = try await history(Entity.self, ids: entities.map(\.id))
        var fresh: [Entity] = []
        for entity in entities where history.insert(entity) {
            if let task = entity as? any SchedulableTask { try task.schedule.validate(in: timeZone) }
            fresh.append(entity)
        }
        let state = try await clock()
        try await writeDocuments(fresh, knowledge: state.vector, author: state.process)
        return fresh
    }

    private func appendVersions<Entity: CareStorable>(_ entities: [Entity], deleting: Bool) async throws -> [Entity] {
        var history = try await history(Entity.self, ids: entities.map(\.id))
        let stamp = now()
        var appended: [Entity] = []
        for (index, entity) in entities.enumerated() {
            var candidate = entity
            candidate.schemaVersion = .careStore
            let uuid = makeUUID()
            try await itemError(index) {
                if !deleting { try await checkTaskUpdate(candidate, history: history) }
            }
            let version = try Self.itemError(index) {
                deleting
                    ? try history.delete(candidate, uuid: uuid, now: stamp)
                    : try history.update(candidate, uuid: uuid, now: stamp)
            }
            appended.append(version)
        }
        try await write(appended, checkingAgainst: history)
        return appended
    }

    /// Runs the outcome guards (on live versions) and writes the versions with this store's stamp.
    private func write<Entity: CareStorable>(_ versions: [Entity], checkingAgainst history: VersionHistory<Entity>)
        async throws
    {
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
        try await writeDocuments(versions, knowledge: state.vector, author: state.process, events: events)
    }

    /// Writes version documents; an existing uuid is skipped (the same version was stored before).
    func writeDocuments<Entity: CareStorable>(
        _ versions: [Entity], knowledge: KnowledgeVector, author: UUID?, events: [UUID: ScheduleEvent] = [:]
    ) async throws {
        guard !versions.isEmpty else { return }
        var events = events
        let unplaced = versions.compactMap { $0 as? Outcome }.filter { events[$0.uuid] == nil }
        if !unplaced.isEmpty { events.merge(try await outcomeEvents(unplaced)) { given, _ in given } }
        let documents = try versions.map { version in
            JSONValue.object(try CareDocument.make(version, knowledge: knowledge, author: author, event: events[version.uuid]))
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
