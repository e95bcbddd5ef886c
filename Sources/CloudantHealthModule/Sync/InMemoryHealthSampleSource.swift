internal import CloudantCore

/// A ``HealthSampleSource`` held in memory, with HealthKit-like anchors (a change counter): the other side of
/// a sync in tests, or samples read from somewhere else to be merged into a store.
///
/// ```swift
/// let phone = InMemoryHealthSampleSource()
/// await phone.save([.quantity(heartRate)])
/// try await HealthSynchronizer(store: store, source: phone).synchronize()
/// ```
public actor InMemoryHealthSampleSource: HealthSampleSource {
    private var samplesByUUID: [String: (sample: AnyHealthSample, change: Int)] = [:]
    private var deletions: [String: Int] = [:]
    private var lastChange = 0

    /// Creates an empty source.
    public init() {}

    /// The samples held, ordered by uuid.
    public var samples: [AnyHealthSample] {
        samplesByUUID.values.map(\.sample).sorted { $0.sample.uuid < $1.sample.uuid }
    }

    /// Adds or replaces samples, as an app writing to HealthKit would.
    public func save(_ samples: [AnyHealthSample]) {
        for sample in samples { record(sample) }
    }

    /// Deletes the samples with these uuids; unknown uuids are ignored.
    public func delete(uuids: [String]) {
        for uuid in uuids where samplesByUUID.removeValue(forKey: uuid) != nil {
            lastChange += 1
            deletions[uuid] = lastChange
        }
    }

    /// Changes after `anchor`, oldest first.
    /// - Throws: `CloudantError` `.invalidInput` when `anchor` is not one this source handed out.
    public func changes(since anchor: String?, limit: Int) async throws -> HealthSourceChanges {
        let after: Int
        if let anchor {
            guard let value = Int(anchor), value >= 0 else {
                throw CloudantError(.invalidInput, "'\(anchor)' is not an anchor of this source; sync from nil.",
                    context: .init(field: "anchor"))
            }
            after = value
        } else {
            after = 0
        }
        enum Entry { case sample(AnyHealthSample), deletion(String) }
        let pending = (samplesByUUID.values.map { ($0.change, Entry.sample($0.sample)) }
            + deletions.map { ($0.value, Entry.deletion($0.key)) })
            .filter { $0.0 > after }.sorted { $0.0 < $1.0 }
        let page = pending.prefix(max(1, limit))
        var samples: [AnyHealthSample] = []
        var deleted: [String] = []
        for (_, entry) in page {
            switch entry {
            case .sample(let sample): samples.append(sample)
            case .deletion(let uuid): deleted.append(uuid)
            }
        }
        return HealthSourceChanges(
            samples: samples, deletedUUIDs: deleted, anchor: String(page.last?.0 ?? after),
            hasMore: pending.count > page.count)
    }

    /// Stores the samples that differ from those held and deletes the uuids held.
    public func apply(_ samples: [AnyHealthSample], deleting uuids: [String]) async throws {
        for sample in samples {
            if let held = samplesByUUID[sample.sample.uuid]?.sample,
                try HealthSampleContent(held) == HealthSampleContent(sample)
            {
                continue
            }
            record(sample)
        }
        delete(uuids: uuids)
    }

    private func record(_ sample: AnyHealthSample) {
        lastChange += 1
        deletions[sample.sample.uuid] = nil
        samplesByUUID[sample.sample.uuid] = (sample.withoutRevision, lastChange)
    }
}
