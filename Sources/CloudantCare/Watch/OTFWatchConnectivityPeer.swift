public import CloudantCareModule
internal import CloudantCore
public import CloudantOnly
internal import CloudantStore
public import Dispatch
public import Foundation

/// The original's watch peer (`OTFWatchConnectivityPeer`), over any message channel: two stores, on a phone
/// and a watch or on any two machines, keep their care data in step by exchanging messages the app carries
/// (a WatchConnectivity session, a socket, a test closure).
///
/// The answering side hands every message it receives to `reply(to:store:sendReply:)`, the original's shape;
/// the side that starts calls `synchronize(store:sendMessage:)`, which pulls what it lacks, resolves
/// concurrent versions with `conflictPolicy`, then pushes what the other side lacks.
///
/// ```swift
/// // watch (answers)
/// func session(_ s: WCSession, didReceiveMessage message: [String: Any], replyHandler: @escaping ([String: Any]) -> Void) {
///     peer.reply(to: message, store: store, sendReply: replyHandler)
/// }
/// // phone (starts)
/// try await peer.synchronize(store: store) { message in try await channel.send(message) }
/// ```
///
/// Unlike the original, which sent every task and outcome each time and then deleted every local document
/// the other side had not sent (health samples included), a peer sends only the versions the other side has
/// not seen (CareKit's knowledge vectors), only ever adds versions, and cuts a payload that exceeds
/// `maximumMessageSize` into pieces (WatchConnectivity refuses messages over about 64 KB).
///
/// Messages are dictionaries of property-list values under the original's keys: `revisionRequestKey` (the
/// requester's knowledge vector, JSON), `revisionReplyKey` and `revisionPushKey` (a piece of the JSON
/// of the revisions and the sender's vector, with its header under `chunkKey`), `revisionErrorKey` (a
/// reason), `databaseSyncedKey`.
public final class OTFWatchConnectivityPeer: Sendable {
    /// Asks for the revisions the sender lacks (value: the sender's knowledge vector as JSON `Data`); with a
    /// ``chunkKey`` header, asks for one more piece of a reply.
    public static let revisionRequestKey = "OCKPeerRevisionRequest"
    /// Answers a request (value: a piece of the reply's JSON, `Data`).
    public static let revisionReplyKey = "OCKPeerRevisionReply"
    /// Sends the sender's own changes (value: a piece of the push's JSON, `Data`).
    public static let revisionPushKey = "OCKPeerRevisionPush"
    /// Reports a failure (value: the reason, `String`).
    public static let revisionErrorKey = "OCKPeerRevisionErrorKey"
    /// Tells the other side a synchronisation finished (value: `true`).
    public static let databaseSyncedKey = "databaseSynced"
    /// The header of a piece: `["transfer": String, "index": Int, "count": Int]`.
    public static let chunkKey = "OCKPeerChunk"

    /// Sends one message to the other side and returns its reply.
    public typealias SendMessage = @Sendable ([String: Any]) async throws -> [String: Any]

    /// The largest message, in bytes, the channel carries (WatchConnectivity's `sendMessage` limit by
    /// default); payloads are cut into pieces that fit with their header, and never under 1 KB.
    public let maximumMessageSize: Int
    /// How long to wait for each reply before the synchronisation fails with
    /// `OTFCloudantError.timedOut(reason:)`.
    public let replyTimeout: Duration
    /// How concurrent versions found while synchronising are resolved.
    public let conflictPolicy: CareConflictPolicy
    /// Called after the other side reported a finished synchronisation (``databaseSyncedKey``).
    public let didSynchronize: (@Sendable () -> Void)?

    private let makeTransferID: @Sendable () -> String
    private let transfers = PeerTransfers()

    /// Creates a peer.
    ///
    /// - Parameters:
    ///   - maximumMessageSize: The channel's message-size limit in bytes.
    ///   - replyTimeout: How long to wait for each reply.
    ///   - conflictPolicy: How concurrent versions are resolved (CareKit's default keeps the newest).
    ///   - makeTransferID: Names transfers; random by default.
    ///   - didSynchronize: Called when the other side reports a finished synchronisation.
    public init(
        maximumMessageSize: Int = 65_536, replyTimeout: Duration = .seconds(30),
        conflictPolicy: CareConflictPolicy = .newest,
        makeTransferID: @escaping @Sendable () -> String = { UUID().uuidString },
        didSynchronize: (@Sendable () -> Void)? = nil
    ) {
        self.maximumMessageSize = maximumMessageSize
        self.replyTimeout = replyTimeout
        self.conflictPolicy = conflictPolicy
        self.makeTransferID = makeTransferID
        self.didSynchronize = didSynchronize
    }

    /// The bytes of payload one message carries: the limit less room for the key and the header.
    var pieceSize: Int { max(maximumMessageSize - 1024, 1024) }

    // MARK: Answering

    /// Answers one message from the other side, as the original's `reply(to:store:sendReply:)`: a request
    /// gets the revisions it lacks (one piece at a time when they exceed the size limit), a push is merged
    /// once all its pieces arrived, a finished-synchronisation note calls ``didSynchronize``. `sendReply` is
    /// called exactly once; a failure is sent as ``revisionErrorKey`` with its reason.
    public func reply(
        to peerMessage: [String: Any], store: OTFCloudantStore, sendReply: @escaping @Sendable ([String: Any]) -> Void
    ) {
        let incoming = Incoming(peerMessage)
        Task {
            do {
                sendReply(try await self.answer(incoming, store: store).dictionary)
            } catch {
                sendReply([Self.revisionErrorKey: OTFCloudantError(error, during: .synchronize).reason])
            }
        }
    }

    private func answer(_ incoming: Incoming, store: OTFCloudantStore) async throws -> Outgoing {
        switch incoming {
        case .request(let vectorJSON):
            let known = try CloudantJSONCoding.makeDecoder().decode(KnowledgeVector.self, from: vectorJSON)
            let care = store.careCompanion
            try await care.prepare()
            guard case .revisionReply(let payload)? = try await care.care.respond(to: .revisionRequest(known)) else {
                throw CloudantError(.peerProtocolError, "The store did not answer the revision request.")
            }
            let pieces = PeerMessageChunks.split(
                try CloudantJSONCoding.makeEncoder().encode(payload), transfer: makeTransferID(), pieceSize: pieceSize)
            await transfers.keep(pieces)
            return .piece(Self.revisionReplyKey, pieces[0])
        case .nextPiece(let transfer, let index):
            guard let piece = await transfers.piece(transfer, index) else {
                throw CloudantError(
                    .peerProtocolError,
                    "Piece \(index) of reply \(transfer) is not held (it expired or was never sent); start again.")
            }
            return .piece(Self.revisionReplyKey, piece)
        case .push(let piece):
            guard let payload = try await transfers.receive(piece) else { return .acknowledgement }
            let decoded = try CloudantJSONCoding.makeDecoder().decode(CarePeerPayload.self, from: payload)
            let care = store.careCompanion
            try await care.prepare()
            _ = try await care.care.respond(to: .revisionPush(decoded))
            return .acknowledgement
        case .synchronized:
            didSynchronize?()
            return .acknowledgement
        case .malformed(let reason):
            throw CloudantError(.invalidInput, reason, context: .init(field: "message"))
        }
    }

    // MARK: Starting

    /// Pulls what this store lacks from the other side, resolves concurrent versions, pushes what the other
    /// side lacks, then tells it the synchronisation finished.
    ///
    /// - Parameters:
    ///   - store: This side's store.
    ///   - sendMessage: Sends one message over the app's channel and returns the other side's reply.
    /// - Returns: The merge versions written while resolving conflicts.
    /// - Throws: `OTFCloudantError.timedOut(reason:)` when a reply does not come within
    ///   ``replyTimeout``; `OTFCloudantError.remoteSynchronizationFailed(reason:)` when the other
    ///   side reports an error or answers out of protocol, or the channel fails. What was merged before a
    ///   failure stays: merging is idempotent, so the next synchronisation resumes.
    @discardableResult
    public func synchronize(store: OTFCloudantStore, sendMessage: @escaping SendMessage) async throws(OTFCloudantError)
        -> [CareEntity]
    {
        let policy = conflictPolicy
        return try await store.care(.synchronize) { care in
            let resolved = try await care.synchronize(with: { try await self.carry($0, over: sendMessage) }, policy: policy)
            _ = try await self.send([Self.databaseSyncedKey: true], over: sendMessage)
            return resolved
        }
    }

    /// ``synchronize(store:sendMessage:)`` with a WatchConnectivity-shaped channel
    /// (`session.sendMessage(_:replyHandler:errorHandler:)`), the result delivered on `callbackQueue`.
    ///
    /// ```swift
    /// peer.synchronize(store: store, sendMessage: { message, reply, fail in
    ///     session.sendMessage(message, replyHandler: reply, errorHandler: fail)
    /// }) { result in … }
    /// ```
    public func synchronize(
        store: OTFCloudantStore, callbackQueue: DispatchQueue = .main,
        sendMessage: @escaping @Sendable (
            [String: Any], _ replyHandler: @escaping @Sendable ([String: Any]) -> Void,
            _ errorHandler: @escaping @Sendable (any Error) -> Void
        ) -> Void,
        completion: (@Sendable (Result<[CareEntity], OTFCloudantError>) -> Void)? = nil
    ) {
        let send: SendMessage = { message in
            let reply = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<ReplyBox, any Error>) in
                let once = ResumeOnce(continuation)
                sendMessage(message, { once.resume(returning: ReplyBox($0)) }, { once.resume(throwing: $0) })
            }
            return reply.message
        }
        Task {
            let result: Result<[CareEntity], OTFCloudantError>
            do throws(OTFCloudantError) {
                result = .success(try await synchronize(store: store, sendMessage: send))
            } catch {
                result = .failure(error)
            }
            callbackQueue.async { completion?(result) }
        }
    }

    /// Carries one peer-protocol message over the channel: a request becomes a request and as many piece
    /// requests as the reply has pieces; a push becomes its pieces.
    private func carry(_ message: CarePeerMessage, over sendMessage: @escaping SendMessage) async throws
        -> CarePeerMessage?
    {
        switch message {
        case .revisionRequest(let vector):
            let request = try CloudantJSONCoding.makeEncoder().encode(vector)
            var piece = try Self.piece(try await send([Self.revisionRequestKey: request], over: sendMessage))
            var assembly = PeerMessageChunks.Assembly(count: piece.count)
            try assembly.add(piece)
            for index in 1..<max(piece.count, 1) {
                let next: [String: Any] = [
                    Self.revisionRequestKey: Data(),
                    Self.chunkKey: ["transfer": piece.transfer, "index": index, "count": piece.count],
                ]
                piece = try Self.piece(try await send(next, over: sendMessage))
                try assembly.add(piece)
            }
            guard let payload = assembly.payload else {
                throw CloudantError(.peerProtocolError, "The reply arrived incomplete; start again.")
            }
            return .revisionReply(try CloudantJSONCoding.makeDecoder().decode(CarePeerPayload.self, from: payload))
        case .revisionPush(let payload):
            let pieces = PeerMessageChunks.split(
                try CloudantJSONCoding.makeEncoder().encode(payload), transfer: makeTransferID(), pieceSize: pieceSize)
            for piece in pieces {
                let reply = try await send(
                    [Self.revisionPushKey: piece.bytes, Self.chunkKey: piece.header], over: sendMessage)
                try Self.checkNoError(reply)
            }
            return nil
        case .revisionReply:
            throw CloudantError(.invalidInput, "Only the answering side sends replies.")
        }
    }

    /// Sends `message` and waits at most ``replyTimeout`` for the reply.
    private func send(_ message: [String: Any], over sendMessage: @escaping SendMessage) async throws -> ReplyBox {
        let box = ReplyBox(message)
        let timeout = replyTimeout
        return try await withThrowingTaskGroup(of: ReplyBox.self) { group in
            group.addTask { ReplyBox(try await sendMessage(box.message)) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw CloudantError(
                    .timedOut, "The other side did not reply within \(timeout); check that it is reachable and retry.")
            }
            defer { group.cancelAll() }
            guard let reply = try await group.next() else { throw CancellationError() }
            return reply
        }
    }

    private static func piece(_ reply: ReplyBox) throws -> PeerMessageChunks.Piece {
        try checkNoError(reply)
        guard let piece = PeerMessageChunks.Piece(header: reply.message[chunkKey], bytes: reply.message[revisionReplyKey])
        else {
            throw CloudantError(
                .peerProtocolError, "The other side answered without a revision reply; is it this peer?")
        }
        return piece
    }

    private static func checkNoError(_ reply: ReplyBox) throws {
        if let reason = reply.message[revisionErrorKey] {
            throw CloudantError(.peerProtocolError, "The other side failed: \(reason)")
        }
    }
}

// MARK: Messages

extension OTFWatchConnectivityPeer {
    /// A received message, read into values that may cross tasks.
    enum Incoming: Sendable {
        case request(Data)
        case nextPiece(transfer: String, index: Int)
        case push(PeerMessageChunks.Piece)
        case synchronized
        case malformed(String)

        init(_ message: [String: Any]) {
            if message[revisionRequestKey] != nil {
                if let header = message[chunkKey] as? [String: Any], let transfer = header["transfer"] as? String,
                    let index = header["index"] as? Int
                {
                    self = .nextPiece(transfer: transfer, index: index)
                } else if let vector = message[revisionRequestKey] as? Data {
                    self = .request(vector)
                } else {
                    self = .malformed("A revision request must carry the requester's knowledge vector as JSON data.")
                }
            } else if message[revisionPushKey] != nil {
                guard let piece = PeerMessageChunks.Piece(header: message[chunkKey], bytes: message[revisionPushKey]) else {
                    self = .malformed("A revision push must carry a piece of data and its header under \(chunkKey).")
                    return
                }
                self = .push(piece)
            } else if message[databaseSyncedKey] != nil {
                self = .synchronized
            } else {
                let keys = message.keys.sorted().joined(separator: ", ")
                self = .malformed("Unknown peer message (keys: \(keys)); expected \(revisionRequestKey) or \(revisionPushKey).")
            }
        }
    }

    /// A reply to send.
    enum Outgoing: Sendable {
        case piece(String, PeerMessageChunks.Piece)
        case acknowledgement

        var dictionary: [String: Any] {
            switch self {
            case .piece(let key, let piece): [key: piece.bytes, OTFWatchConnectivityPeer.chunkKey: piece.header]
            case .acknowledgement: [:]
            }
        }
    }
}

/// A message dictionary carried between tasks. Property-list values (strings, numbers, data, arrays and
/// dictionaries of them) are immutable value types, which is what WatchConnectivity and this peer put in them.
struct ReplyBox: @unchecked Sendable {
    let message: [String: Any]
    init(_ message: [String: Any]) { self.message = message }
}

/// Resumes a continuation once, whichever of a channel's reply or error handlers is called first.
final class ResumeOnce: @unchecked Sendable {
    // `lock` protects `continuation`, taken on the first call.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<ReplyBox, any Error>?

    init(_ continuation: CheckedContinuation<ReplyBox, any Error>) { self.continuation = continuation }

    func resume(returning reply: ReplyBox) { take()?.resume(returning: reply) }
    func resume(throwing error: any Error) { take()?.resume(throwing: error) }

    private func take() -> CheckedContinuation<ReplyBox, any Error>? {
        lock.withLock {
            defer { continuation = nil }
            return continuation
        }
    }
}

/// The pieces this side holds: replies being fetched piece by piece, and pushes being received. Bounded, so
/// a peer that never finishes cannot grow it: at most 16 transfers each way, the oldest dropped first.
actor PeerTransfers {
    private var outgoing: [(transfer: String, pieces: [PeerMessageChunks.Piece])] = []
    private var incoming: [(transfer: String, assembly: PeerMessageChunks.Assembly)] = []
    private static let limit = 16

    func keep(_ pieces: [PeerMessageChunks.Piece]) {
        guard pieces.count > 1, let transfer = pieces.first?.transfer else { return }
        outgoing.append((transfer, pieces))
        if outgoing.count > Self.limit { outgoing.removeFirst() }
    }

    func piece(_ transfer: String, _ index: Int) -> PeerMessageChunks.Piece? {
        guard let pieces = outgoing.first(where: { $0.transfer == transfer })?.pieces, pieces.indices.contains(index)
        else { return nil }
        if index == pieces.count - 1 { outgoing.removeAll { $0.transfer == transfer } }
        return pieces[index]
    }

    /// Adds a piece of a push; returns the whole payload once the last piece arrived.
    func receive(_ piece: PeerMessageChunks.Piece) throws -> Data? {
        var assembly =
            incoming.first(where: { $0.transfer == piece.transfer })?.assembly
            ?? PeerMessageChunks.Assembly(count: piece.count)
        try assembly.add(piece)
        incoming.removeAll { $0.transfer == piece.transfer }
        guard let payload = assembly.payload else {
            incoming.append((piece.transfer, assembly))
            if incoming.count > Self.limit { incoming.removeFirst() }
            return nil
        }
        return payload
    }
}
