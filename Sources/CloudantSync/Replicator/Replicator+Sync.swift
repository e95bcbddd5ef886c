extension Replicator {
    /// Two-way sync: a push and a pull running together (CouchDB sync is two replications).
    ///
    /// ```swift
    /// let (pushed, pulled) = try await Replicator.sync(LocalPeer(store), remote, options: ReplicationOptions(continuous: true))
    /// ```
    /// - Returns: What each direction moved (one-shot); a continuous sync runs until its task is cancelled.
    /// - Throws: The first `CloudantError` of either direction; the other is then cancelled.
    public static func sync(
        _ local: any ReplicationPeer, _ remote: any ReplicationPeer, options: ReplicationOptions = ReplicationOptions(),
        delegate: (any ReplicatorDelegate)? = nil
    ) async throws -> (push: ReplicationStats, pull: ReplicationStats) {
        let push = Replicator(source: local, target: remote, options: options, delegate: delegate)
        let pull = Replicator(source: remote, target: local, options: options, delegate: delegate)
        return try await withThrowingTaskGroup(of: (Bool, ReplicationStats).self) { group in
            group.addTask { (true, try await push.run()) }
            group.addTask { (false, try await pull.run()) }
            var pushed = ReplicationStats()
            var pulled = ReplicationStats()
            do {
                for try await (isPush, stats) in group {
                    if isPush { pushed = stats } else { pulled = stats }
                }
            } catch {
                group.cancelAll()
                throw error
            }
            return (pushed, pulled)
        }
    }
}
