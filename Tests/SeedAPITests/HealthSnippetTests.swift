import CloudantHealth
import Foundation
import Testing

/// The HealthKit integration of OTFCloudantStore's README: `collection(healthKitSampleType:)`, `getSamples` and
/// `OTFHealthKitSynchronizer` over a health-sample source.
@Suite("OTFCloudantStore's README: HealthKit integration")
struct HealthSnippetTests {
    @Test func samplesComeByFamilyAndSyncWithTheHealthStoreBothWaysThenOneWay() async throws {
        let folder = SeedFolder()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let healthStore = InMemoryHealthSampleSource()
        try await healthStore.apply(
            [.quantity(QuantitySample(uuid: "STEPS-1", typeIdentifier: "HKQuantityTypeIdentifierStepCount", value: 420, unit: "count", startDate: start, endDate: start + 600))],
            deleting: [])
        let findings = try await HealthSnippets.run(try folder.store(), healthStore: healthStore, start: start)
        #expect(findings.samples == ["HR-1", "HR-2"])
        #expect(findings.storeAfterSync == ["HR-1", "HR-2", "STEPS-1"])
        #expect(findings.sourceAfterSync == ["HR-1", "HR-2", "STEPS-1"])
        #expect(findings.pulledOnly == 1)
    }

    @Test func aPullOnlySyncLeavesLocalChangesForTheNextPush() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        let source = InMemoryHealthSampleSource()
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        _ = try await store.add([
            CategorySample(uuid: "SLEEP-1", typeIdentifier: "HKCategoryTypeIdentifierSleepAnalysis", value: 1, startDate: start, endDate: start + 3600)
        ])
        let synchronizer = OTFHealthKitSynchronizer(dataStore: store, healthStore: source)
        #expect(try await synchronizer.synchronize(direction: .fromHKToCloudant).pushedSamples == 0)
        #expect(try await source.changes(since: nil, limit: 10).samples.isEmpty)
        #expect(try await synchronizer.synchronize(direction: .fromCloudantToHK).pushedSamples == 1)
        #expect(try await source.changes(since: nil, limit: 10).samples.map(\.id) == ["SLEEP-1"])
    }

    @Test func aSourceSlowerThanTheStoresTimeoutFailsWithTimedOut() async throws {
        let folder = SeedFolder()
        let store = try folder.store(timeout: .milliseconds(200))
        let synchronizer = OTFHealthKitSynchronizer(dataStore: store, healthStore: SlowSource())
        do {
            try await synchronizer.synchronize()
            Issue.record("expected a timeout")
        } catch {
            guard case .timedOut(let reason) = error else { Issue.record("expected timedOut, got \(error)"); return }
            #expect(reason.contains("synchronize"))
        }
    }

    @Test func aFailingSourceIsARemoteSynchronizationFailure() async throws {
        let folder = SeedFolder()
        let synchronizer = OTFHealthKitSynchronizer(dataStore: try folder.store(), healthStore: FailingSource())
        let result: Result<HealthSyncReport, OTFCloudantError> = await callback { done in
            synchronizer.syncWithHealthKit(direction: .fromHKToCloudant, callbackQueue: HealthSnippets.queue) { done($0) }
        }
        guard case .failure(.remoteSynchronizationFailed(let reason)) = result else {
            Issue.record("expected remoteSynchronizationFailed, got \(result)")
            return
        }
        #expect(reason.contains("HealthKit is unavailable"))
    }
}

/// A health source that answers after a day (HealthKit busy with a large query): the store's timeout always comes
/// first, however late a loaded machine fires it, and cancels this wait.
struct SlowSource: HealthSampleSource {
    func changes(since anchor: String?, limit: Int) async throws -> HealthSourceChanges {
        try await Task.sleep(for: .seconds(86_400))
        return HealthSourceChanges(samples: [], deletedUUIDs: [], anchor: anchor ?? "", hasMore: false)
    }

    func apply(_ samples: [AnyHealthSample], deleting uuids: [String]) async throws {}
}

/// A health source that fails every call.
struct FailingSource: HealthSampleSource {
    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "HealthKit is unavailable on this device" }
    }

    func changes(since anchor: String?, limit: Int) async throws -> HealthSourceChanges { throw Unavailable() }
    func apply(_ samples: [AnyHealthSample], deleting uuids: [String]) async throws { throw Unavailable() }
}
