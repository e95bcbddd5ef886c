internal import CloudantCore

/// Sends one message to the peer and returns its answer (`nil` when the message needs none).
public typealias CarePeerTransport = @Sendable (CarePeerMessage) async throws -> CarePeerMessage?

// The watch peer (CareKit's `OCKWatchConnectivityPeer`, which OTFCloudantStore's watch peer adapted) on
// knowledge vectors. The original
// sent full snapshots and deleted every local document the peer had not sent; here a peer only ever adds
// versions, so nothing is lost when a peer sends less than everything.
extension CareStore {
    /// Answers a peer's message: a request gets the revisions it lacks (then this store's clock advances); a
    /// push is merged with its catch-up vector and gets no answer.
    ///
    /// ```swift
    /// let transport: CarePeerTransport = { message in try await watch.respond(to: message) }
    /// try await phone.synchronize(with: transport, policy: .newest)
    /// ```
    /// - Throws: `CloudantError.Code.invalidInput` for a reply, which only a requester expects.
    public func respond(to message: CarePeerMessage) async throws -> CarePeerMessage? {
        switch message {
        case .revisionRequest(let known):
            let revisions = try await revisions(since: known)
            let payload = CarePeerPayload(knowledgeVector: try await knowledge(), revisions: revisions)
            try await incrementClock()
            return .revisionReply(payload)
        case .revisionPush(let payload):
            try await merge(payload.revisions)
            try await catchUp(with: payload.knowledgeVector)
            return nil
        case .revisionReply:
            throw CloudantError(
                .invalidInput, "A revision reply answers this store's own request; pass it to synchronize(with:policy:).",
                context: .init(field: "OCKPeerRevisionReply"))
        }
    }

    /// Pulls from a peer, resolves concurrent versions, then pushes what the peer lacks (CareKit's
    /// `pullThenPush`).
    ///
    /// - Returns: The merge versions written while resolving conflicts.
    /// - Throws: `CloudantError.Code.peerProtocolError` when the peer does not answer a
    ///   request with a reply; whatever the transport throws (nothing merged so far is lost: merging is
    ///   idempotent, so the next sync resumes).
    @discardableResult
    public func synchronize(with peer: CarePeerTransport, policy: CareConflictPolicy) async throws -> [CareEntity] {
        let reply = try await pull(from: peer)
        let resolved = try await resolveConflicts(policy: policy)
        let local = try await knowledge()
        let revisions = try await revisions(since: reply.knowledgeVector)
        try await incrementClock()
        _ = try await peer(.revisionPush(CarePeerPayload(knowledgeVector: local, revisions: revisions)))
        return resolved
    }
}
