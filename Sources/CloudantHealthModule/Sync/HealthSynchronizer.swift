public import CloudantStore

/// Keeps a store and a ``HealthSampleSource`` (HealthKit, another store, an export) in step, both ways, by
/// sample uuid, deletions included, with anchors persisted in the store so each run sends only what changed.
///
/// ```swift
/// let sync = HealthSynchronizer(store: store, source: healthKit, name: "phone")
/// let report = try await sync.synchronize()
/// print(report.pulledSamples, report.pushedSamples)
/// ```
///
/// A run pushes the store's changes since its sequence to the source, pulls the source's changes since its
/// anchor into the store, then pushes what changed in the store meanwhile (never the pull's own writes), page
/// by page until each side is exhausted (the original looked only at the first 30 stored samples). Pushing
/// first makes the source's echo of what was just pushed identical to the store, so it is not rewritten; and
/// when a sample changed on both sides since the last run, the store's version wins. Anchors live in
/// `_local/health-sync-<name>`, saved after every page, so a cancelled or failed run resumes where it stopped.
public struct HealthSynchronizer: Sendable {
    /// The store synchronised; it must have ``HealthPlugin`` installed.
    public let store: DocumentStore
    /// The other side.
    public let source: any HealthSampleSource
    /// Names this pairing's anchors, so one store can sync with several sources.
    public let name: String
    /// Samples and deletions per page.
    public let pageSize: Int

    /// Creates a synchronizer.
    public init(store: DocumentStore, source: any HealthSampleSource, name: String = "default", pageSize: Int = 500) {
        self.store = store
        self.source = source
        self.name = name
        self.pageSize = max(1, pageSize)
    }

    /// Which way a run carries changes.
    public enum Direction: Sendable, Hashable, CaseIterable {
        /// From the store to the source only.
        case toSource
        /// From the source into the store only.
        case fromSource
        /// Both ways: push, pull, then push what changed meanwhile.
        case both
    }

    /// Runs one sync in both directions.
    /// - Throws: `CloudantError` from the store (`.conflict` when a sample changes in the store while it is
    ///   being written; run again), or what the source throws. Pages already done stay done.
    public func synchronize() async throws -> HealthSyncReport {
        try await synchronize(direction: .both)
    }

    /// Runs one sync in `direction`. A one-way run moves only its own direction's anchor, so changes the
    /// other way are still sent by the next run that goes that way.
    /// - Throws: As ``synchronize()``.
    public func synchronize(direction: Direction) async throws -> HealthSyncReport {
        var anchors = try await HealthSyncAnchors.load(name, from: store)
        var report = HealthSyncReport()
        let local = StoreHealthSampleSource(store: store)
        guard direction != .toSource else {
            try await push(from: local, excluding: [:], anchors: &anchors, report: &report)
            return report
        }
        if direction == .both { try await push(from: local, excluding: [:], anchors: &anchors, report: &report) }
        var ownWrites: [String: String] = [:]
        while true {
            try Task.checkCancellation()
            let page = try await source.changes(since: anchors.source, limit: pageSize)
            let written = try await local.write(page.samples, deleting: page.deletedUUIDs)
            ownWrites.merge(written) { _, latest in latest }
            report.pulledSamples += page.samples.count
            report.pulledDeletions += page.deletedUUIDs.count
            report.storeWrites += written.count
            anchors.source = page.anchor
            try await anchors.save(name, to: store)
            if !page.hasMore { break }
        }
        // A pull-only run leaves the store's anchor where it was, so local changes still go out with the next
        // push; that push offers the source the samples it sent here too, which it already holds unchanged.
        if direction == .both { try await push(from: local, excluding: ownWrites, anchors: &anchors, report: &report) }
        return report
    }

    /// Sends the store's changes after its anchor to the source, leaving out the revisions in `excluded`
    /// (document id to the revision the pull wrote).
    private func push(
        from local: StoreHealthSampleSource, excluding excluded: [String: String], anchors: inout HealthSyncAnchors,
        report: inout HealthSyncReport
    ) async throws {
        while true {
            try Task.checkCancellation()
            let page = try await local.changes(since: anchors.store, limit: pageSize)
            let samples = page.samples.filter { excluded[$0.id] != $0.sample.revId }
            let deletions = page.deletedUUIDs.filter { excluded[$0] == nil }
            if !samples.isEmpty || !deletions.isEmpty {
                try await source.apply(samples.map(\.withoutRevision), deleting: deletions)
            }
            report.pushedSamples += samples.count
            report.pushedDeletions += deletions.count
            anchors.store = page.anchor
            try await anchors.save(name, to: store)
            if !page.hasMore { break }
        }
    }
}
