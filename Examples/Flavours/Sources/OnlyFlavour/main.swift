import CloudantOnly
import Foundation

// CloudantOnly: the document store alone. It runs the store, CRUD, query and error snippets of
// OTFCloudantStore's README (the same files SeedAPITests runs, linked here) against this product only, and
// exits 1 when one does not hold.
let folder = NSTemporaryDirectory() + "only-flavour-" + UUID().uuidString
let store = try OTFCloudantStore(storeName: "seed", directory: folder)
let crud = try await StoreSnippets.crud(store)
let queries = try await StoreSnippets.queries(store)
try? FileManager.default.removeItem(atPath: folder)
guard crud.deletedAll, crud.errors["staleUpdate"]?.hasPrefix("updateFailed") == true,
    queries.queries["short"] == ["c1"], queries.queries["combined"] == ["c1"]
else {
    print("CloudantOnly: the original's snippets did not hold: \(crud) \(queries)")
    exit(1)
}
print("CloudantOnly \(CloudantVersion.current): the original's store snippets ok")
