internal import CloudantCore
internal import Foundation
internal import GRDB

/// Keeps every index and column projection in step with the documents, inside the write transaction that changes them (so an
/// index is never behind its data, and a crash loses neither or both).
///
/// The writer calls it after each document row changes. A store without indexes pays one small query per
/// transaction (loading the list) and nothing per document.
struct IndexMaintainer {
    private(set) var indexes: [StoredIndex]
    /// The column projections, kept in step the same way (see `ColumnProjection`).
    private let projections: [StoredProjection]
    /// The member holding expiry times, when documents expire (their `document_expiry` rows are kept here too).
    private let expiryField: String?

    /// The store's clock, which dates tombstones.
    private let now: @Sendable () -> Date
    /// Whether index entries prepared before the transaction were computed against ``indexes``.
    private var preparedEntriesMatch: Bool

    /// - Parameters:
    ///   - expiryField: From ``WriterSettings``, which every write transaction reads.
    ///   - now: The store's clock (``StoreOptions/now``).
    ///   - preparedAgainst: The catalogue the writes' index entries were prepared against, if they were.
    init(
        db: Database, cache: IndexCatalogCache?, expiryField: String?, now: @escaping @Sendable () -> Date,
        preparedAgainst: IndexSnapshot? = nil
    ) throws {
        self.expiryField = expiryField
        self.now = now
        if let cache {
            (indexes, projections) = try cache.catalog(in: db)
        } else {
            indexes = try IndexCatalog.all(in: db)
            projections = try ProjectionCatalog.all(in: db)
        }
        preparedEntriesMatch = preparedAgainst?.matches(indexes) ?? false
    }

    /// The document as indexes and partial filters see it: the body with `_id` first (CouchDB indexes may
    /// name `_id`).
    static func indexable(id: String, body: JSONObject) -> JSONObject {
        body.prepending([("_id", .string(id))])
    }

    /// Re-indexes one document after its row changed.
    ///
    /// - Parameters:
    ///   - body: The winner's body when the document is live, nil when it is deleted or gone.
    ///   - previousBody: The previous winner's body when it was live (its entries are removed); nil for a
    ///     new document or one that was deleted.
    ///   - newRow: The row was inserted by this write: a live new document has no tombstone row to remove
    ///     (a row's tombstone goes with it), which saves a statement per document on loads.
    ///   - prepared: `body`'s JSON index entries computed before the transaction (``IndexSnapshot``); used
    ///     when they were computed against this catalogue.
    mutating func documentChanged(
        rowID: Int64, id: String, body: @autoclosure () throws -> JSONObject?,
        previousBody: @autoclosure () throws -> JSONObject?, newRow: Bool = false,
        prepared: [[[UInt8]]?]? = nil, in db: Database
    ) throws {
        let current = try body()
        if !(newRow && current != nil) {
            try TombstoneRecord.update(rowID: rowID, isLive: current != nil, now: now().timeIntervalSince1970, in: db)
        }
        if id.hasPrefix("_design/") {
            try IndexCatalog.synchronise(designDocument: id, body: current, in: db)
            indexes = try IndexCatalog.all(in: db)
            preparedEntriesMatch = false
            return
        }
        if let expiryField { try ExpiryRecord.update(rowID: rowID, body: current, field: expiryField, in: db) }
        guard !indexes.isEmpty || !projections.isEmpty else { return }
        // Entries are found again from the body they were computed from; parsed once, and only when an
        // index or a clustered projection needs it.
        let previous = !indexes.isEmpty || projections.contains(where: \.isClustered) ? try previousBody() : nil
        if let previous {
            for index in indexes where !index.readsMetadata {
                try IndexTable.removeEntry(index, rowID: rowID, id: id, previousBody: previous, in: db)
            }
        }
        // Those reading metadata are kept from the row the caller has just written, deleted or gone.
        if readsMetadata { try metadataChanged(rowID: rowID, id: id, in: db) }
        let body = current
        for projection in projections { try projection.update(rowID: rowID, id: id, body: body, previousBody: previous, in: db) }
        guard let body else { return }
        let preparedKeys = preparedEntriesMatch ? prepared : nil
        for (position, index) in indexes.enumerated() where !index.readsMetadata {
            if let preparedKeys, index.definition.type == .json {
                if let keys = preparedKeys[position] { try IndexTable.addEntry(index, rowID: rowID, id: id, keys: keys, in: db) }
            } else {
                try IndexTable.addEntry(index, rowID: rowID, id: id, body: body, in: db)
            }
        }
    }

    /// Whether an index reads the documents' metadata (``StoredIndex/readsMetadata``): their entries change
    /// when a write changes the revision tree without changing the winner.
    var readsMetadata: Bool { indexes.contains(where: \.readsMetadata) }

    /// Re-indexes one document in the indexes that read metadata, from its row as it is now (a deleted or
    /// missing row leaves no entry): after any write to it, and after one that changed only its revision tree (a
    /// conflicting revision added or ended), which only those indexes can see.
    func metadataChanged(rowID: Int64, id: String, in db: Database) throws {
        guard !DocumentID.isDesign(id) else { return }
        let document = try IndexedDocument.read(rowID: rowID, in: db)
        for index in indexes where index.readsMetadata {
            try IndexTable.removeEntries(index, rowID: rowID, in: db)
            if let document, let keys = index.jsonKeys(document: document) {
                try IndexTable.addEntry(index, rowID: rowID, id: id, keys: keys, in: db)
            }
        }
    }

    /// Parses a stored body for indexing.
    static func parse(_ bytes: [UInt8]?) throws -> JSONObject? {
        guard let bytes, case .object(let object) = try JSONValue(parsing: bytes) else { return nil }
        return object
    }
}
