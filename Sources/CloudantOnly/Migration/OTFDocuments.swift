public import CloudantCore
public import CloudantStore
public import Foundation

/// Reading the documents the original OTFCloudantStore wrote, shared by the Care and Health migrations.
///
/// The original named a document's kind in `entityType` (`OCKTask`, `OTFCloudantSample`); releases before
/// 1.0.3 wrote `entity_type`, and their documents were never renamed, so both keys are read. Pages come in
/// `_id` order with their conflicts, so a migration can page through a store it is changing and report
/// documents whose revisions conflict.
public enum OTFDocuments {
    /// The members that named a document's kind in the original, newest first.
    public static let kindKeys = ["entityType", "entity_type"]

    /// The ids of the live documents whose `key` member is `kind`, in a stable order.
    ///
    /// Ids first, then pages of documents by id (``documents(ids:in:)``): paging a query by `_id` ranges would
    /// compare ids by CouchDB's collation (case-insensitive first) while `_id` order is by bytes, so a page
    /// could be read twice.
    /// - Throws: `CloudantError` when the store cannot be read.
    public static func ids(of kind: String, key: String, in store: DocumentStore) async throws -> [String] {
        let request = FindRequest(
            selector: try MangoSelector(.object([key: .string(kind)])), limit: Int.max,
            fields: [try FieldPath(parsing: "_id")])
        return try await store.find(request).docs.compactMap { $0["_id"]?.stringValue }.sorted()
    }

    /// The live documents with these ids, in the order given, with their conflicts (`_conflicts`); ids
    /// deleted or converted meanwhile are left out.
    ///
    /// ```swift
    /// let ids = try await OTFDocuments.ids(of: "OCKTask", key: "entityType", in: store)
    /// for batch in OTFDocuments.batches(ids, of: 200) {
    ///     let page = try await OTFDocuments.documents(ids: batch, in: store)
    /// }
    /// ```
    /// - Throws: `CloudantError` when the store cannot be read.
    public static func documents(ids: [String], in store: DocumentStore) async throws -> [JSONObject] {
        guard !ids.isEmpty else { return [] }
        let request = FindRequest(
            selector: try MangoSelector(.object(["_id": ["$in": .array(ids.map(JSONValue.string))]])),
            limit: ids.count, conflicts: true)
        let found = Dictionary(
            try await store.find(request).docs.compactMap { doc in doc["_id"]?.stringValue.map { ($0, doc) } },
            uniquingKeysWith: { first, _ in first })
        return ids.compactMap { found[$0] }
    }

    /// `ids` in consecutive batches of at most `size`.
    public static func batches(_ ids: [String], of size: Int) -> [[String]] {
        let size = max(size, 1)
        return stride(from: 0, to: ids.count, by: size).map { Array(ids[$0..<min($0 + size, ids.count)]) }
    }

    /// Writes groups of documents (each converted document with its tombstone, say) in one transaction; a
    /// group whose write fails is dropped and the rest are written again, so one bad document never blocks
    /// its page and no group is ever half written.
    ///
    /// - Returns: The groups that were not written, by position in `groups`, with why.
    /// - Throws: `CloudantError` when the transaction itself fails.
    public static func write(_ groups: [[JSONObject]], in store: DocumentStore) async throws
        -> [(group: Int, error: CloudantError)]
    {
        var remaining = Array(groups.indices)
        var failures: [(group: Int, error: CloudantError)] = []
        while !remaining.isEmpty {
            var documents: [IncomingDocument] = []
            var owner: [Int] = []
            for group in remaining {
                for document in groups[group] {
                    documents.append(try IncomingDocument(document))
                    owner.append(group)
                }
            }
            do {
                _ = try await store.bulkDocs(parsed: documents, allOrNothing: true)
                break
            } catch let error as CloudantError {
                guard let item = error.context.itemIndex, owner.indices.contains(item) else { throw error }
                failures.append((owner[item], error))
                remaining.removeAll { $0 == owner[item] }
            }
        }
        return failures
    }

    /// The body a converter decodes: `document` without CouchDB's `_` members, its kind member, and the stale
    /// copy of the document's revision the original kept in `userInfo["revId"]` (an empty `userInfo` goes too).
    public static func body(of document: JSONObject) -> JSONObject {
        var body = JSONObject(document.members.filter { key, _ in !key.hasPrefix("_") && !kindKeys.contains(key) })
        if case .object(var userInfo)? = body["userInfo"] {
            userInfo.removeValue(forKey: "revId")
            body["userInfo"] = userInfo.isEmpty ? nil : .object(userInfo)
        }
        return body
    }

    /// The kind `document` declares, under either key.
    public static func kind(of document: JSONObject) -> String? {
        kindKeys.lazy.compactMap { document[$0]?.stringValue }.first
    }

    /// A UUID derived from `name` (RFC 4122 version 3 layout over MD5), so a document the original wrote
    /// without a uuid gets the same one however often it is converted.
    public static func uuid(named name: String) -> UUID {
        let digest = AttachmentDigest.of(Array(("otfcloudantstore:" + name).utf8))
        var bytes = Array(Data(base64Encoded: String(digest.dropFirst("md5-".count))) ?? Data(count: 16))
        bytes += [UInt8](repeating: 0, count: max(0, 16 - bytes.count))
        bytes[6] = (bytes[6] & 0x0F) | 0x30
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    /// Whether `document`, read with its conflicts, has conflicting revisions (a non-empty `_conflicts`).
    public static func hasConflicts(_ document: JSONObject) -> Bool {
        !(document["_conflicts"]?.arrayValue?.isEmpty ?? true)
    }
}
