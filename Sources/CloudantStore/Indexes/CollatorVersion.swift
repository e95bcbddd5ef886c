internal import CloudantCore
internal import GRDB

/// Keeps stored index keys made by the collator that reads them.
///
/// JSON index entries and view rows are ordered by ICU sort keys (``CollationKey``), and a sort key is only
/// comparable with keys from the same collator version: a Swift toolchain with another ICU may order some
/// strings differently. The version the keys were made with is kept in `store_info`; when a store opens
/// with another (or none, as every store written before keys were ICU's), JSON index entries are made
/// again in one transaction and view indexes are dropped, to be built by their next query as after
/// `_view_cleanup`. CouchDB records `collator_versions` in each view's header for the same reason.
enum CollatorVersion {
    /// The `store_info` key of the collator version stored keys were made with.
    static let storeInfoKey = "collator_version"

    /// Remakes the keys when they were made with another collator version; nothing otherwise.
    static func remakeKeysIfChanged(in pool: DatabasePool) throws {
        let current = Collation.version
        guard try pool.read({ db in try StoreInfo.string(storeInfoKey, in: db) }) != current else { return }
        try pool.write { db in
            guard try StoreInfo.string(storeInfoKey, in: db) != current else { return }
            try JSONIndexBuild.refillAll(in: db)
            for view in try ViewIndexCatalog.all(in: db) { try ViewIndexCatalog.drop(view, in: db) }
            try StoreInfo.set(storeInfoKey, to: current, in: db)
        }
    }
}
