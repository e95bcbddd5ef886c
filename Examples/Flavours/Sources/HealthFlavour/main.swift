import CloudantHealth
import Foundation

// CloudantHealth: the store plus the health samples (and libxml2). It runs the store and HealthKit snippets of
// OTFCloudantStore's README against this product only, and exits 1 when one does not hold.
let folder = NSTemporaryDirectory() + "health-flavour-" + UUID().uuidString
let store = try OTFCloudantStore(storeName: "seed", directory: folder)
let queries = try await StoreSnippets.queries(store)
let health = try await HealthSnippets.run(
    try OTFCloudantStore(storeName: "health", directory: folder), healthStore: InMemoryHealthSampleSource(),
    start: Date(timeIntervalSince1970: 1_700_000_000))
try? FileManager.default.removeItem(atPath: folder)
guard queries.queries["short"] == ["c1"], health.samples == ["HR-1", "HR-2"], health.pulledOnly == 1 else {
    print("CloudantHealth: the original's snippets did not hold: \(queries) \(health)")
    exit(1)
}
print("CloudantHealth: the original's store and HealthKit snippets ok, libxml2 \(XMLRuntime.libxml2Version)")
