import CloudantCareHealth
import Foundation

// CloudantCareHealth: everything. It runs every snippet of OTFCloudantStore's READMEs against this product only, and
// exits 1 when one does not hold.
let folder = NSTemporaryDirectory() + "carehealth-flavour-" + UUID().uuidString
func open(_ name: String) throws -> OTFCloudantStore { try OTFCloudantStore(storeName: name, directory: folder) }
let crud = try await StoreSnippets.crud(try open("seed"))
let queries = try await StoreSnippets.queries(try open("queries"))
let care = try await CareSnippets.run(try open("care"), now: Date())
let health = try await HealthSnippets.run(
    try open("health"), healthStore: InMemoryHealthSampleSource(), start: Date(timeIntervalSince1970: 1_700_000_000))
let peer = try await WatchPeerSnippets.run(phone: try open("phone"), watch: try open("watch"), maximumMessageSize: 4_096, now: Date())
try? FileManager.default.removeItem(atPath: folder)
guard crud.deletedAll, queries.queries["complex"]?.count == 3, care.deletedPlanGone, health.pulledOnly == 1,
    peer.phoneOutcomes == 1
else {
    print("CloudantCareHealth: the original's snippets did not hold: \(crud) \(queries) \(care) \(health) \(peer)")
    exit(1)
}
let plugins = try EntityRegistry.careHealth().installedPlugins
print("CloudantCareHealth: every snippet of the original's READMEs ok (\(plugins.joined(separator: ", ")))")
