// OTFCloudantStore's README, "Healthkit Integration": samples queried by family with `collection(healthKitSampleType:)` and
// `getSamples`, and `OTFHealthKitSynchronizer` keeping the store and the health store in step. Compiled
// against CloudantHealth alone.
//
// Changed for Linux: `HKSample` is AnyHealthSample; `HKHealthStore` is any HealthSampleSource (HealthKit does
// not exist on Linux); Combine's `Future` is a checked continuation (Combine does not exist on Linux either).
import CloudantHealth
import Dispatch
import Foundation

/// What the health snippets did.
struct HealthSnippetFindings: Sendable {
    var samples: [String] = []
    var storeAfterSync: [String] = []
    var sourceAfterSync: [String] = []
    var pulledOnly = 0
    var errors: [String: String] = [:]
}

enum HealthSnippets {
    static let queue = DispatchQueue(label: "seed-health-snippets")

    static func run(_ cloudantStore: OTFCloudantStore, healthStore: InMemoryHealthSampleSource, start: Date) async throws
        -> HealthSnippetFindings
    {
        var findings = HealthSnippetFindings()
        _ = try await cloudantStore.add([
            QuantitySample(uuid: "HR-1", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 71, unit: "count/min", startDate: start, endDate: start),
            QuantitySample(uuid: "HR-2", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 74, unit: "count/min", startDate: start + 60, endDate: start + 60),
        ])

        // Future<[HKSample], Never> { promise in
        //     cloudantStore.collection(healthKitSampleType: .quantity).getSamples { result in
        //         promise(.success((try? result.get()) ?? []))
        //     }
        // }
        let samples: [AnyHealthSample] = await withCheckedContinuation { promise in
            cloudantStore.collection(healthKitSampleType: .quantity).getSamples(callbackQueue: queue) { result in
                promise.resume(returning: (try? result.get()) ?? [])
            }
        }
        findings.samples = samples.map(\.id).sorted()

        // OTFHealthKitSynchronizer(dataStore:healthStore:), then syncWithHealthKit().
        let synchronizer = OTFHealthKitSynchronizer(dataStore: cloudantStore, healthStore: healthStore)
        let synced: Result<HealthSyncReport, OTFCloudantError> = await callback { done in
            synchronizer.syncWithHealthKit(callbackQueue: queue) { done($0) }
        }
        _ = try synced.get()
        findings.storeAfterSync = try await cloudantStore.collection(healthKitSampleType: .quantity).getSamples().map(\.id).sorted()
        findings.sourceAfterSync = try await healthStore.changes(since: nil, limit: 100).samples.map(\.id).sorted()

        try await healthStore.apply(
            [.quantity(QuantitySample(uuid: "HR-9", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 90, unit: "count/min", startDate: start + 600, endDate: start + 600))],
            deleting: [])
        findings.pulledOnly = try await synchronizer.synchronize(direction: .fromHKToCloudant).pulledSamples
        return findings
    }
}
