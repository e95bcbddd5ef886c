import CloudantCare
import CloudantTestSupport
import Foundation
import Testing

/// OTFCloudantStore's README (its watchOS release): the watch peer, knowledge-vector sync between two stores over a channel the app provides.
@Suite("OTFCloudantStore's README: the watch peer")
struct WatchPeerTests {
    @Test func peersSendOnlyChangesInPiecesThatFitTheLimitAndDeleteNothing() async throws {
        let folder = SeedFolder()
        let phone = try folder.store("phone")
        let watch = try folder.store("watch")
        let limit = 4_096
        // Replies may take long on a loaded machine: only a broken channel waits out the deadline.
        let findings = try await WatchPeerSnippets.run(
            phone: phone, watch: watch, maximumMessageSize: limit, now: Date(), replyTimeout: TestDeadline.generous)
        #expect(findings.watchTasks.count == 40)
        #expect(findings.messageSizes.count > 4, "40 long tasks need several pieces at 4 KB")
        #expect(findings.messageSizes.allSatisfy { $0 <= limit })
        #expect(findings.phoneOutcomes == 1)
        // The second sync carries one outcome and the vectors, not the 40 tasks again.
        #expect(findings.secondSyncPayloadBytes < findings.messageSizes.reduce(0, +) / 4)
        #expect(findings.watchOnlyDocumentKept)
    }

    @Test func aChannelThatNeverRepliesTimesOut() async throws {
        let folder = SeedFolder()
        let peer = OTFWatchConnectivityPeer(replyTimeout: .milliseconds(200))
        let store = try folder.store()
        do {
            try await peer.synchronize(store: store) { _ in
                // Never replies (the peer's timeout cancels this wait), however late that timeout fires.
                try await Task.sleep(for: .seconds(86_400))
                return [:]
            }
            Issue.record("expected a timeout")
        } catch {
            guard case .timedOut = error else { Issue.record("expected timedOut, got \(error)"); return }
        }
    }

    @Test func anErrorReplyOrAStrangerIsARemoteSynchronizationFailure() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        let peer = OTFWatchConnectivityPeer(replyTimeout: TestDeadline.generous)
        for reply in [[OTFWatchConnectivityPeer.revisionErrorKey: "Revision Error"], ["hello": "world"]] as [[String: String]] {
            do {
                try await peer.synchronize(store: store) { _ in reply }
                Issue.record("expected a failure")
            } catch {
                guard case .remoteSynchronizationFailed = error else { Issue.record("got \(error)"); continue }
            }
        }
    }

    @Test func theAnsweringSideRepliesToAMalformedMessageWithAnErrorKey() async throws {
        let folder = SeedFolder()
        let store = try folder.store()
        let peer = OTFWatchConnectivityPeer()
        for message in [["something": "else"], [OTFWatchConnectivityPeer.revisionRequestKey: "not data"]] as [[String: String]] {
            let reply: MessageBox = await withCheckedContinuation { continuation in
                peer.reply(to: message, store: store) { continuation.resume(returning: MessageBox($0)) }
            }
            #expect(reply.message[OTFWatchConnectivityPeer.revisionErrorKey] is String)
        }
    }

    @Test func aWatchConnectivityShapedChannelDeliversTheResultOnItsQueue() async throws {
        let folder = SeedFolder()
        let phone = try folder.store("phone")
        let watch = try folder.store("watch")
        _ = try await phone.addPatient(Patient(id: "anna", name: PersonNameComponents()))
        let watchPeer = OTFWatchConnectivityPeer()
        let result: Result<[CareEntity], OTFCloudantError> = await callback { done in
            OTFWatchConnectivityPeer(replyTimeout: TestDeadline.generous).synchronize(store: phone, callbackQueue: DispatchQueue(label: "wc"), sendMessage: { message, replyHandler, _ in
                watchPeer.reply(to: message, store: watch, sendReply: replyHandler)
            }) { done($0) }
        }
        _ = try result.get()
        #expect(try await watch.fetchPatients().map(\.id) == ["anna"])
    }
}

/// Cutting payloads into pieces and putting them back together.
@Suite("Peer message pieces")
struct PeerMessageChunkTests {
    @Test(arguments: [0, 1, 999, 1_000, 1_001, 12_345])
    func splittingThenAssemblingInAnyOrderGivesThePayloadBack(size: Int) throws {
        let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let pieces = PeerMessageChunks.split(payload, transfer: "T", pieceSize: 1_000)
        #expect(pieces.count == max(1, (size + 999) / 1_000))
        #expect(pieces.allSatisfy { $0.bytes.count <= 1_000 })
        var assembly = PeerMessageChunks.Assembly(count: pieces.count)
        for piece in pieces.reversed() + pieces.prefix(1) { try assembly.add(piece) }
        #expect(assembly.payload == payload)
    }

    @Test func aPieceOfAnotherSizedTransferIsRefused() {
        var assembly = PeerMessageChunks.Assembly(count: 3)
        #expect(throws: PeerMessageChunks.AssemblyError.self) {
            try assembly.add(PeerMessageChunks.Piece(transfer: "T", index: 0, count: 2, bytes: Data()))
        }
        #expect(assembly.payload == nil)
    }

    @Test func aHeaderIsReadBackOnlyWhenWellFormed() {
        let piece = PeerMessageChunks.Piece(transfer: "T", index: 1, count: 2, bytes: Data([1]))
        #expect(PeerMessageChunks.Piece(header: piece.header as [String: Any], bytes: Data([1])) == piece)
        #expect(PeerMessageChunks.Piece(header: ["transfer": "T", "index": 2, "count": 2] as [String: Any], bytes: Data()) == nil)
        #expect(PeerMessageChunks.Piece(header: nil, bytes: Data()) == nil)
    }
}
