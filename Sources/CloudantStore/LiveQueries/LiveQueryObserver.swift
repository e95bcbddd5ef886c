internal import CloudantCore
internal import Foundation

/// One live query's view of the store: the page it last answered, and the decision, for each committed
/// change, whether that change can alter the page.
///
/// The decision costs a selector match and at most one sort-key comparison per changed document, so an
/// observer whose results a write cannot touch costs next to nothing, however large the store. When a
/// change may alter the page, the observer wakes its task, which runs the query again (see
/// ``DocumentStore/observe(_:)``); wake-ups coalesce, so a burst of writes costs one run.
///
/// Correctness does not rest on the decision being sharp, only on it never saying "irrelevant" wrongly:
/// a change that arrives while a run is in flight always wakes the observer again, because the run may or
/// may not have seen it.
final class LiveQueryObserver: LiveObserver, @unchecked Sendable {
    let request: FindRequest
    /// Bounds the selector match each change costs (a `$regex`'s steps).
    let limits: MatchLimits
    /// The reader's visibility: a change to a document it refuses is judged before the selector sees it.
    let visibility: DocumentVisibility?
    /// Yields (coalesced) when the query must run again.
    let wakeUps: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    // `lock` protects everything below.
    private let lock = NSLock()
    private var pageIDs: Set<String> = []
    /// The sort keys and id of the page's last document, when the page is full and sorted.
    private var pageEnd: (keys: [JSONValue], id: String)?
    private var pageIsFull = false
    /// True from the moment a run is about to read until its page is installed (the first run included).
    private var running = true

    init(request: FindRequest, limits: MatchLimits = .default, visibility: DocumentVisibility? = nil) {
        self.request = request
        self.limits = limits
        self.visibility = visibility
        (wakeUps, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Called by the hub with the changes committed since the last call (`purged`: documents were purged,
    /// which the changes feed cannot show).
    func consider(_ changes: [Change], purged: Bool) {
        let mustRun = lock.withLock { running || purged || changes.contains(where: isRelevant) }
        if mustRun { wake.yield() }
    }

    /// Marks a run as started: changes considered from now on wake the observer again.
    func beginRun() {
        lock.withLock { running = true }
    }

    /// Records the page a run answered (unprojected documents, so ids and sort keys are there).
    func install(page: [JSONObject]) {
        let ids = Set(page.compactMap { $0["_id"]?.stringValue })
        let full = page.count >= request.limit
        var end: (keys: [JSONValue], id: String)?
        if full, !request.sort.isEmpty, let last = page.last, let id = last["_id"]?.stringValue,
            let keys = QueryExecutor.keys(of: last, order: request.sort)
        {
            end = (keys, id)
        }
        lock.withLock {
            pageIDs = ids
            pageIsFull = full
            pageEnd = end
            running = false
        }
    }

    /// Ends the observer's wake-ups (its query was cancelled or the store closed).
    func finish() {
        wake.finish()
    }

    /// Whether `change` could alter the page. Called with `lock` held.
    private func isRelevant(_ change: Change) -> Bool {
        if pageIDs.contains(change.id) { return true }
        // Design documents are never results, but an index one may change which index answers an unsorted
        // query, and so its order.
        if change.id.hasPrefix("_design/") { return request.sort.isEmpty }
        // A document the reader may not see (and that was not on the page) cannot alter it; it is judged before
        // the selector runs on it. Without the document, the run decides.
        if let visibility, let document = change.doc, !visibility.allows(document) { return false }
        // With `skip` or a bookmark the page is a window further down the results: a document entering or
        // leaving the results before it shifts it, and whether it was there before is not known here.
        if request.skip > 0 || request.bookmark != nil { return true }
        // Not on the page and gone: the page is the first `limit` results, which it was not among.
        if change.deleted { return false }
        guard let document = change.doc else { return true }
        if let partition = request.partition, !change.id.hasPrefix(partition + ":") { return false }
        // A `$regex` over its step limit cannot be decided here: the run reports it.
        guard (try? request.selector.matches(document, limits: limits)) ?? true else { return false }
        guard pageIsFull else { return true }
        guard let pageEnd else { return true }  // Unsorted (index order) or text-ranked: cannot place it.
        // A document without a sort field is left out of sorted results.
        guard let keys = QueryExecutor.keys(of: document, order: request.sort) else { return false }
        return QueryExecutor.precedes(keys: keys, id: change.id, keys: pageEnd.keys, id: pageEnd.id, order: request.sort)
    }
}
