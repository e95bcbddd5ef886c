internal import CloudantCore

/// The next batch's reads, run while the current batch is being written.
///
/// Writing a batch holds the target's writer; reading the next one (changes, `_revs_diff`, fetches) needs
/// only readers, so the two overlap. A copy of the state machine is fed the events the real one will most
/// likely see (the upload succeeds, the checkpoint is written), and its read requests are performed ahead.
/// The real machine then asks for the same requests and gets the answers already read; if it asks for
/// anything else (an upload failed, the filter changed nothing), the speculation is simply not used.
///
/// Reading ahead is safe: reads change nothing, and a revision reported missing before the current
/// batch landed is at worst fetched and written again, which `new_edits: false` ignores.
struct Speculation: Sendable {
    var since: JSONValue?
    var page: ChangesPage?
    var diffRequest: [String: [String]]?
    var diff: [String: MissingRevisions]?
    var fetchRequests: [RevisionRequest]?
    var fetched: [FetchedRevision]?

    /// Runs the read steps that follow a successful upload, stopping at the next write, at a wait for
    /// changes (continuous mode), or at the first failure.
    static func run(
        after machine: ReplicationStateMachine, source: any ReplicationPeer, target: any ReplicationPeer,
        fetch: @Sendable ([RevisionRequest]) async throws -> [FetchedRevision]
    ) async -> Speculation {
        var copy = machine
        var ahead = Speculation()
        var action = copy.event(.written([]))
        if case .writeCheckpoint = action { action = copy.event(.checkpointWritten) }
        do {
            guard case .readChanges(let request) = action, request.longpoll == nil else { return ahead }
            ahead.since = request.since
            let page = try await source.changes(request)
            ahead.page = page
            guard case .revsDiff(let revisions) = copy.event(.changesRead(page)) else { return ahead }
            ahead.diffRequest = revisions
            let diff = try await target.revsDiff(revisions)
            ahead.diff = diff
            guard case .fetch(let requests) = copy.event(.diffed(diff)) else { return ahead }
            ahead.fetchRequests = requests
            ahead.fetched = try await fetch(requests)
        } catch {
            // The real machine will make the request itself, with retries.
        }
        return ahead
    }
}
