internal import CloudantCore
internal import CloudantStore
internal import Foundation

/// The server's database events for `/_db_updates`, kept as CouchDB's `global_changes` keeps them: a document per
/// event and database (`created:db`, `updated:db`, `deleted:db`) in a store of their own, whose changes feed is the
/// events feed, so each database shows its latest event of each type once, in order, with an opaque sequence, and
/// the feed survives a restart.
///
/// The store is `_global_changes.sqlite` in the data folder; it is no database of the server (`_all_dbs` does not
/// list it). Creations and deletions are written before the request that made them is answered; updates are
/// gathered and written together (CouchDB's `global_changes` batches them too), so a busy database costs one
/// event write per batch, not one per document.
actor DatabaseUpdates {
    let store: DocumentStore
    private var pendingUpdates: Set<String> = []
    private var flushing: Task<Void, Never>?
    /// The commits of each open database accounted for (see ``DatabaseRegistry/Event/updated(commits:)``).
    private var accountedCommits: [String: Int] = [:]

    /// Opens the events store in `folder`; `accounted` are the commits of databases already open that are no
    /// update (``DatabaseRegistry/commitCounts()``).
    init(folder: String, encryptionKey: DatabaseKey?, accounted: [String: Int] = [:]) throws {
        accountedCommits = accounted
        var options = StoreOptions()
        options.encryptionKey = encryptionKey
        store = try DocumentStore.open(
            name: "_global_changes", fileURL: URL(fileURLWithPath: folder).appendingPathComponent("_global_changes.sqlite"),
            options: options)
    }

    /// Records that `database` was created or deleted.
    func record(_ type: String, _ database: String) async {
        // A database created or deleted starts its count again (its store is a new one).
        accountedCommits[database] = nil
        // Updates noted before come first in the feed, as they happened first.
        await flushing?.value
        await write(type, database)
    }

    /// Counts `commits` (``DatabaseRegistry/commitCounts()``) as accounted for without recording them: the
    /// writes the server itself makes while it starts (the authentication database's design document) are no
    /// update, as those made before the log opened are none.
    func account(_ commits: [String: Int]) {
        accountedCommits.merge(commits) { max($0, $1) }
    }

    /// Notes that `database` has had `commits` writes committed since its store opened; commits not accounted for
    /// before are an update, recorded with the others gathered meanwhile.
    func noteCommits(_ commits: Int, to database: String) {
        guard commits > accountedCommits[database, default: 0] else { return }
        accountedCommits[database] = commits
        noteUpdated(database)
    }

    /// Notes a write to `database`; it is recorded with the others gathered meanwhile.
    private func noteUpdated(_ database: String) {
        pendingUpdates.insert(database)
        guard flushing == nil else { return }
        flushing = Task { await self.flush() }
    }

    /// Waits until the updates gathered so far are written, so a feed read now shows them.
    func settle() async {
        await flushing?.value
    }

    private func flush() async {
        while !pendingUpdates.isEmpty {
            let names = pendingUpdates.sorted()
            pendingUpdates.removeAll()
            for name in names { await write("updated", name) }
        }
        flushing = nil
    }

    private func write(_ type: String, _ database: String) async {
        let id = type + ":" + database
        await store.rewrite(id: id) { current in
            var document: JSONObject = ["_id": .string(id), "db_name": .string(database), "type": .string(type)]
            if let rev = current?["_rev"] { document["_rev"] = rev }
            return document
        }
    }

    /// A change of the events store as `/_db_updates` shows it: `{"db_name","type","seq"}`.
    static func row(_ change: Change) -> JSONValue {
        let parts = change.id.split(separator: ":", maxSplits: 1).map(String.init)
        return [
            "db_name": .string(parts.count == 2 ? parts[1] : change.id), "type": .string(parts.first ?? ""),
            "seq": UpdateSequence.json(change.seq),
        ]
    }

    /// Stops gathering (the server stops) and closes the store.
    func close() async {
        await flushing?.value
        try? store.close()
    }
}
