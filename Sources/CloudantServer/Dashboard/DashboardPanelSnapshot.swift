internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// A copy of the documents one user may see in a database, for a dashboard panel to render from when
/// per-document access restricts the user.
///
/// A panel reads its database through the store's whole API (typed entities, projections, statistics), which
/// knows nothing of access lists; given the database itself it would chart a hidden patient's heart rate. So
/// a restricted user's panel gets a store holding only the winning revisions the user may see (bodies, not
/// attachments), made for the one page in a folder of its own in the data folder (encrypted with the server's
/// key when it has one) and removed once the page is rendered. It costs a read of the database and a write of
/// what the user sees; database admins and users without per-document access read the database itself.
struct DashboardPanelSnapshot: Sendable {
    /// The snapshot's folder, removed with it.
    let folder: URL
    /// The snapshot store's file.
    let fileURL: URL
    /// The snapshot, writable, without an entity registry.
    let store: DocumentStore
    private let name: String
    private let key: DatabaseKey?

    /// Documents read and written per step.
    static let pageSize = 500

    /// Copies the documents of `source` whose winning revision `visibility` allows into a new store in a fresh
    /// folder under `parent`.
    /// - Throws: `CloudantError` when a store cannot be read or written; `CancellationError` when
    ///   the request goes away meanwhile (the folder is removed).
    static func make(
        of source: DocumentStore, name: String, visibility: DocumentVisibility, under parent: URL, key: DatabaseKey?
    ) async throws -> DashboardPanelSnapshot {
        let folder = parent.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let fileURL = folder.appendingPathComponent("snapshot.sqlite")
            var options = StoreOptions()
            options.encryptionKey = key
            let store = try DocumentStore.open(name: name, fileURL: fileURL, options: options)
            let snapshot = DashboardPanelSnapshot(folder: folder, fileURL: fileURL, store: store, name: name, key: key)
            try await snapshot.copy(from: source, visibility: visibility)
            return snapshot
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    private func copy(from source: DocumentStore, visibility: DocumentVisibility) async throws {
        var page = AllDocsOptions(limit: Self.pageSize, includeDocs: true)
        while true {
            try Task.checkCancellation()
            let found = try await source.allDocs(page)
            var batch: [JSONValue] = []
            for row in found.rows {
                guard let document = row["doc"]?.objectValue, visibility.allows(document) else { continue }
                // The winner as a new document of the copy: its revision and attachment stubs mean nothing there.
                var copy = document
                for member in ["_rev", "_attachments", "_conflicts", "_deleted_conflicts"] { copy.removeValue(forKey: member) }
                batch.append(.object(copy))
            }
            if !batch.isEmpty { _ = try await store.bulkDocs(batch) }
            guard found.rows.count == Self.pageSize, let last = found.rows.last?["id"]?.stringValue else { return }
            page.startKey = last
            page.skip = 1
        }
    }

    /// The snapshot opened again, read-only, with `registry`'s entity kinds (what
    /// ``DashboardPanelContext/openReadOnly(registry:)`` gives a panel).
    func openReadOnly(registry: EntityRegistry) throws -> DocumentStore {
        var options = StoreOptions(registry: registry, readOnly: true)
        options.encryptionKey = key
        return try DocumentStore.open(name: name, fileURL: fileURL, options: options)
    }

    /// Closes the snapshot and removes its folder.
    func remove() {
        try? store.close()
        try? FileManager.default.removeItem(at: folder)
    }
}
