/// Told what an ``AutomaticSync`` does, in CareKit's shape (`OCKRemoteSynchronizationDelegate`): a sync is
/// about to start, and how far it got. Every method has an empty default, so implement only what you use.
///
/// ```swift
/// final class SyncStatus: AutomaticSyncDelegate {
///     func didRequestSynchronization(_ sync: AutomaticSync) { log("syncing") }
///     func automaticSync(_ sync: AutomaticSync, didUpdateProgress progress: Double) { publish(progress) }
/// }
/// await sync.setDelegate(status)
/// ```
///
/// Unlike CareKit's store, the trigger starts the sync itself: `didRequestSynchronization` says that it does,
/// it does not ask the app to. Calls arrive in order on the sync's own task, never two at once; keep them
/// short, and hop to your own queue for UI (or use `observe(callbackQueue:_:)`, in the flavour umbrellas).
/// The sync holds its delegate weakly.
public protocol AutomaticSyncDelegate: AnyObject, Sendable {
    /// A sync is about to start (after writes settled, on schedule, on request or to retry; the
    /// ``SyncEvent/started(_:)`` that follows says which).
    func didRequestSynchronization(_ sync: AutomaticSync)
    /// The running sync moved: `progress` is its share done, 0…1 (``SyncProgress/fractionCompleted``).
    func automaticSync(_ sync: AutomaticSync, didUpdateProgress progress: Double)
    /// Every event, as ``AutomaticSync/events()`` delivers it.
    func automaticSync(_ sync: AutomaticSync, didReport event: SyncEvent)
}

extension AutomaticSyncDelegate {
    /// Does nothing.
    public func didRequestSynchronization(_ sync: AutomaticSync) {}
    /// Does nothing.
    public func automaticSync(_ sync: AutomaticSync, didUpdateProgress progress: Double) {}
    /// Does nothing.
    public func automaticSync(_ sync: AutomaticSync, didReport event: SyncEvent) {}
}
