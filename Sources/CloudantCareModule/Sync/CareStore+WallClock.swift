internal import CloudantCore
public import Foundation

// The wall-clock sync mode (ParseCareKit's `ParseSynchronizedStoreManager`)
// over the same peer messages as knowledge vectors: the responder is the server, stamps what arrives with its
// clock and settles concurrent versions itself; devices push, then pull its decision. See ``CareSyncMode``
// for the trade-off.
extension CareStore {
    /// Syncs with a peer in `mode`: with knowledge vectors, ``synchronize(with:policy:)``; with the wall clock,
    /// pull, push this store's changes (the server stamps and settles them), then pull the server's decisions.
    ///
    /// ```swift
    /// let merges = try await phone.synchronize(with: { try await server.respond(to: $0, mode: .wallClock) }, mode: .wallClock)
    /// ```
    /// - Returns: The merge versions that settled concurrent versions: written here (knowledge vectors), or
    ///   written by the server and received here (wall clock).
    /// - Throws: `CloudantError.Code.peerProtocolError` when the peer does not answer a
    ///   request with a reply; whatever the transport throws (what was merged stays: the next sync resumes).
    @discardableResult
    public func synchronize(with peer: CarePeerTransport, mode: CareSyncMode) async throws -> [CareEntity] {
        switch mode {
        case .knowledgeVector(let policy): return try await synchronize(with: peer, policy: policy)
        case .wallClock: break
        }
        let before = try await pull(from: peer)
        let local = try await knowledge()
        let revisions = try await revisions(since: before.knowledgeVector)
        try await incrementClock()
        _ = try await peer(.revisionPush(CarePeerPayload(knowledgeVector: local, revisions: revisions)))
        let after = try await pull(from: peer)
        // A merge version names every version it settles; an ordinary edit names at most the one it replaces.
        return after.revisions.flatMap(\.entities).filter { $0.versioned.previousVersionUUIDs.count > 1 }
    }

    /// Answers a peer's message in `mode`. With the wall clock, a push's versions are stamped with this
    /// store's clock (`now`) as they are stored, and concurrent versions are settled at once: the one stamped
    /// last wins, written as a merge version the devices pull. Everything else is ``respond(to:)``.
    ///
    /// - Throws: The codes of ``respond(to:)``.
    public func respond(to message: CarePeerMessage, mode: CareSyncMode) async throws -> CarePeerMessage? {
        guard case .wallClock = mode, case .revisionPush(let payload) = message else { return try await respond(to: message) }
        try await merge(payload.revisions, serverTime: now())
        try await catchUp(with: payload.knowledgeVector)
        // Merges written next must be news to every device, the pusher included: its vector now equals ours.
        try await incrementClock()
        let times = try await serverTimes()
        try await resolveConflicts(
            policy: .custom { conflict in
                guard let latest = CareSyncMode.latestByServerTime(conflict.versions, serverTimes: times) else {
                    throw CloudantError(.notFound, "A conflict has no versions.", context: .init(documentID: conflict.id))
                }
                return latest
            })
        return nil
    }

    /// When this store, as a wall-clock server, first held the version `uuid`, by its own clock: the arrival
    /// stamp of a version a device pushed, or the `updatedDate` of one written here (an edit or a merge).
    /// `nil` for a version this store received otherwise, or does not hold.
    public func serverTime(ofVersion uuid: UUID) async throws -> Date? {
        guard let document = try await versionDocument(uuid: uuid, kinds: CarePlugin.builtInKindNames) else { return nil }
        return try await Self.serverTime(of: document, writtenBy: processID())
    }

    /// The server times this store knows, by version uuid.
    private func serverTimes() async throws -> [UUID: Date] {
        let me = try await processID()
        let selector: JSONObject = [
            "$or": [[CareDocument.serverTimeField: ["$exists": true]], [CareDocument.authorField: .string(me.uuidString)]]
        ]
        var times: [UUID: Date] = [:]
        for kind in CarePlugin.builtInKindNames {
            for document in try await versionDocuments(kind: kind, where: selector) {
                if let uuid = document["uuid"]?.stringValue.flatMap(UUID.init(uuidString:)),
                    let time = Self.serverTime(of: document, writtenBy: me)
                {
                    times[uuid] = time
                }
            }
        }
        return times
    }

    /// The arrival stamp, else, for a version written by this store, its `updatedDate` (this store's clock).
    private static func serverTime(of document: JSONObject, writtenBy me: UUID) -> Date? {
        if let stamp = CareDocument.serverTime(of: document) { return stamp }
        guard CareDocument.author(of: document) == me else { return nil }
        return try? document["updatedDate"]?.decode(Date.self)
    }

    /// Asks the peer for what this store lacks, merges it with the peer's vector, and advances this store's
    /// clock so later writes are news (the pull half of either mode).
    func pull(from peer: CarePeerTransport) async throws -> CarePeerPayload {
        guard case .revisionReply(let reply)? = try await peer(.revisionRequest(try await knowledge())) else {
            throw CloudantError(
                .peerProtocolError, "The peer did not answer the revision request with a reply; retry.")
        }
        try await merge(reply.revisions)
        try await catchUp(with: reply.knowledgeVector)
        try await incrementClock()
        return reply
    }
}
