internal import CloudantCore
internal import CloudantStore

/// Where a sync got to on each side, kept in the store's `_local/health-sync-<name>` document: local, so it
/// is never replicated, and written after every page so an interrupted sync resumes where it stopped.
struct HealthSyncAnchors: Equatable {
    /// The source's opaque anchor after the last page pulled.
    var source: String?
    /// The store's update sequence after the last page pushed.
    var store: String?
    /// The `_local` document's revision, `nil` before the first save.
    var revision: String?

    static func documentID(_ name: String) -> String { "_local/health-sync-\(name)" }

    static func load(_ name: String, from store: DocumentStore) async throws -> HealthSyncAnchors {
        let document: JSONObject
        do {
            document = try await store.localDocument(id: documentID(name))
        } catch let error as CloudantError where error.code == .notFound {
            return HealthSyncAnchors()
        }
        return HealthSyncAnchors(
            source: document["sourceAnchor"]?.stringValue, store: document["storeSequence"]?.stringValue,
            revision: document["_rev"]?.stringValue)
    }

    mutating func save(_ name: String, to store: DocumentStore) async throws {
        var body: JSONObject = [:]
        if let source { body["sourceAnchor"] = .string(source) }
        if let store = self.store { body["storeSequence"] = .string(store) }
        revision = try await store.putLocal(id: Self.documentID(name), body: body, rev: revision).rev
    }
}
