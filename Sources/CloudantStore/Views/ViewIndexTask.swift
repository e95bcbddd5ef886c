public import Foundation
internal import Synchronization

/// A view index being brought up to date, as CouchDB's `/_active_tasks` lists an `indexer`: whose views they
/// are, how many of the documents changed since the index's sequence the update has mapped, of how many, and
/// when it started and last moved. ``DocumentStore/activeViewIndexTasks`` lists them while they run.
public struct ViewIndexTask: Sendable, Hashable {
    /// `_design/{ddoc}` for a design document's views, the view's name for a Swift view.
    public var designDocument: String
    /// Changed documents mapped so far (CouchDB's `changes_done`).
    public var changesDone: Int
    /// Documents changed since the index's sequence when the update started (`total_changes`).
    public var totalChanges: Int
    /// When the update started.
    public var startedOn: Date
    /// When ``changesDone`` last moved.
    public var updatedOn: Date

    /// ``changesDone`` in percent of ``totalChanges``, rounded down as `couch_mrview_updater` rounds it, and 0
    /// when there is nothing to map.
    public var progress: Int { totalChanges == 0 ? 0 : min(100, changesDone * 100 / totalChanges) }
}

/// The update a store's view maintenance thread runs now, if any: written by ``ViewIndexUpdater`` as it maps
/// documents, read by any thread (``DocumentStore/activeViewIndexTasks``). A store updates one index at a time.
final class ViewIndexProgress: Sendable {
    private let task = Mutex<ViewIndexTask?>(nil)

    /// The update in progress.
    var current: ViewIndexTask? { task.withLock { $0 } }

    /// An update of `designDocument`'s index starts, with `total` documents to map.
    func start(_ designDocument: String, total: Int) {
        let now = Date()
        task.withLock {
            $0 = ViewIndexTask(designDocument: designDocument, changesDone: 0, totalChanges: total, startedOn: now, updatedOn: now)
        }
    }

    /// `count` more documents were mapped.
    func advance(by count: Int) {
        guard count > 0 else { return }
        let now = Date()
        task.withLock { task in
            task?.changesDone += count
            task?.updatedOn = now
        }
    }

    /// The update ended (done, failed or cancelled).
    func finish() {
        task.withLock { $0 = nil }
    }
}
