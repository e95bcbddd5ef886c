internal import CloudantCore
public import CloudantStore

/// A store as a ``HealthSampleSource``: its changes feed gives the changes (the anchor is the update
/// sequence), and applying writes samples under their uuid as document id. Sync a phone's store with a
/// backup, or a freshly imported export with the store an app uses.
///
/// ```swift
/// let imported = StoreHealthSampleSource(store: exportStore)
/// try await HealthSynchronizer(store: appStore, source: imported).synchronize()
/// ```
///
/// Only documents of the health kinds take part; a deleted document reports its id as the deleted uuid.
public struct StoreHealthSampleSource: HealthSampleSource {
    /// The store read and written.
    public let store: DocumentStore

    /// Wraps a store that has ``HealthPlugin`` installed.
    public init(store: DocumentStore) {
        self.store = store
    }

    /// Health documents changed after the update sequence `anchor`.
    /// - Throws: `CloudantError` `.invalidInput` for an anchor that is not a sequence, or a store error.
    public func changes(since anchor: String?, limit: Int) async throws -> HealthSourceChanges {
        let since: Int64
        if let anchor {
            guard let value = Int64(anchor), value >= 0 else {
                throw CloudantError(.invalidInput, "'\(anchor)' is not an update sequence of this store.",
                    context: .init(database: store.name, field: "anchor"))
            }
            since = value
        } else {
            since = 0
        }
        let page = try await store.changes(ChangesOptions(since: since, limit: max(1, limit), includeDocs: true))
        var deleted: [String] = []
        var idsByFamily: [HealthSampleType: [String]] = [:]
        var order: [String: Int] = [:]
        for (index, change) in page.results.enumerated() {
            if change.id.hasPrefix("_design/") {
                continue
            } else if change.deleted {
                deleted.append(change.id)
            } else if case .string(let kind)? = change.doc?["entityType"], let family = HealthSampleType(kindName: kind) {
                idsByFamily[family, default: []].append(change.id)
                order[change.id] = index
            }
        }
        var samples: [AnyHealthSample] = []
        for (family, ids) in idsByFamily { samples += try await Self.read(family, ids: ids, from: store) }
        samples.sort { (order[$0.id] ?? 0) < (order[$1.id] ?? 0) }
        return HealthSourceChanges(
            samples: samples, deletedUUIDs: deleted, anchor: String(page.lastSeq), hasMore: page.hasMore)
    }

    /// Writes the samples that differ from the stored ones and deletes the uuids stored.
    /// - Throws: a store error; samples before the failing one stay written.
    public func apply(_ samples: [AnyHealthSample], deleting uuids: [String]) async throws {
        _ = try await write(samples, deleting: uuids)
    }

    /// Like ``apply(_:deleting:)``, returning the revision written for each document id, so a synchronizer
    /// can tell its own writes apart in the changes feed.
    func write(_ samples: [AnyHealthSample], deleting uuids: [String]) async throws -> [String: String] {
        var written: [String: String] = [:]
        for sample in samples {
            if let rev = try await upsert(sample.sample) { written[sample.id] = rev }
        }
        for uuid in uuids {
            guard let current = try await liveDocument(uuid),
                case .string(let kind)? = current["entityType"], HealthSampleType(kindName: kind) != nil,
                case .string(let rev)? = current["_rev"]
            else { continue }
            written[uuid] = try await store.delete(id: uuid, rev: rev).rev
        }
        return written
    }

    private func upsert<Sample: HealthSample>(_ sample: Sample) async throws -> String? {
        var incoming = sample
        incoming.revId = nil
        guard try await liveDocument(sample.id) != nil else {
            return try await store.add([incoming]).first?.revId
        }
        let stored = try await store.get(Sample.self, id: sample.id)
        var plain = stored
        plain.revId = nil
        if try JSONValue(encoding: plain) == JSONValue(encoding: incoming) { return nil }
        incoming.revId = stored.revId
        return try await store.update([incoming]).first?.revId
    }

    private func liveDocument(_ id: String) async throws -> JSONObject? {
        do {
            return try await store.document(id: id)
        } catch let error as CloudantError where error.code == .notFound {
            return nil
        }
    }

    static func read(_ family: HealthSampleType, ids: [String], from store: DocumentStore) async throws -> [AnyHealthSample] {
        switch family {
        case .category: return try await store.get(CategorySample.self, ids: ids).map(AnyHealthSample.category)
        case .quantity: return try await store.get(QuantitySample.self, ids: ids).map(AnyHealthSample.quantity)
        case .correlation: return try await store.get(CorrelationSample.self, ids: ids).map(AnyHealthSample.correlation)
        case .workout: return try await store.get(WorkoutSample.self, ids: ids).map(AnyHealthSample.workout)
        case .workoutRoute: return try await store.get(WorkoutRouteSample.self, ids: ids).map(AnyHealthSample.workoutRoute)
        case .cdaDocument: return try await store.get(CDADocumentSample.self, ids: ids).map(AnyHealthSample.cdaDocument)
        case .activitySummary:
            return try await store.get(ActivitySummarySample.self, ids: ids).map(AnyHealthSample.activitySummary)
        case .clinicalRecord:
            return try await store.get(ClinicalRecordSample.self, ids: ids).map(AnyHealthSample.clinicalRecord)
        case .generic: return try await store.get(GenericSample.self, ids: ids).map(AnyHealthSample.generic)
        }
    }
}
