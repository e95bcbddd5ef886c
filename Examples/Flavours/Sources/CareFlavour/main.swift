import CloudantCare
import Foundation

// CloudantCare: the store plus the care entities. It runs the store and CareKit snippets of OTFCloudantStore's
// README and its watch peer's against this product only, and exits 1 when one does not hold.
let folder = NSTemporaryDirectory() + "care-flavour-" + UUID().uuidString
let store = try OTFCloudantStore(storeName: "seed", directory: folder)
let crud = try await StoreSnippets.crud(store)
let care = try await CareSnippets.run(try OTFCloudantStore(storeName: "care", directory: folder), now: Date())
let peer = try await WatchPeerSnippets.run(
    phone: try OTFCloudantStore(storeName: "phone", directory: folder),
    watch: try OTFCloudantStore(storeName: "watch", directory: folder), maximumMessageSize: 4_096, now: Date())
try? FileManager.default.removeItem(atPath: folder)
guard crud.deletedAll, care.tasks == ["meds", "walk"], care.deletedPlanGone, peer.watchTasks.count == 40,
    peer.phoneOutcomes == 1, peer.watchOnlyDocumentKept
else {
    print("CloudantCare: the original's snippets did not hold: \(crud) \(care) \(peer)")
    exit(1)
}
print("CloudantCare: the original's store and CareKit snippets and watch peer ok")
