internal import CloudantCore

extension Replicator {
    /// The id of this replication: the name of its checkpoint documents (`_local/<id>` on both peers), the same
    /// before, during and after a run, and the same for every replicator made with the same peers, filter and
    /// ``ReplicationOptions/sinceSequence``.
    ///
    /// A server that runs replications as jobs names each by it (CouchDB's `_local_id`), before the first request.
    ///
    /// ```swift
    /// let id = try await Replicator(source: LocalPeer(a), target: LocalPeer(b)).replicationID()
    /// ```
    /// - Throws: what the peers' ``ReplicationPeer/identity()`` throws (an ``HTTPPeer`` or ``LocalPeer`` never
    ///   throws: neither asks the network).
    public func replicationID() async throws -> String {
        let sourceIdentity = try await source.identity()
        let targetIdentity = try await target.identity()
        return ReplicationID.make(
            source: sourceIdentity, target: targetIdentity, filter: options.filter, filterSource: try await filterSource(),
            sinceSequence: options.sinceSequence)
    }

    /// The source of the design document's filter the replication runs, when it runs one.
    func filterSource() async throws -> String? {
        guard case .designFunction(let name, _) = options.filter else { return nil }
        return try await source.filterFunctionSource(name)
    }
}
