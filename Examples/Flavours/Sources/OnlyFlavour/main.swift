import CloudantOnly

// CloudantOnly: the document store alone. One API: a store folder and its store file.
let url = try StoreDirectory(path: "cloudant-data").fileURL(forStore: "only")
print("CloudantOnly \(CloudantVersion.current): \(url.lastPathComponent)")
