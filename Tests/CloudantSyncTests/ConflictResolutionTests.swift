import CloudantCore
import CloudantStore
import CloudantSync
import Foundation
import Testing

@Suite("Conflict resolution after sync")
struct ConflictResolutionTests {
    /// Two stores that each edited `note` from the same base, then synced: `note` has two leaves on both.
    static func conflicted() async throws -> LocalReplicationTests.Stores {
        let stores = try LocalReplicationTests.Stores()
        let base = try await stores.a.put(["_id": "note", "text": "base", "updated": "2026-01-01"])
        _ = try await LocalReplicationTests.replicate(stores.a, stores.b)
        try await stores.a.put(["_id": "note", "_rev": .string(base.rev), "text": "device", "updated": "2026-03-01"])
        try await stores.b.put(["_id": "note", "_rev": .string(base.rev), "text": "server", "updated": "2026-02-01"])
        try await stores.a.put(["_id": "calm", "text": "no conflict"])
        _ = try await LocalReplicationTests.replicate(stores.b, stores.a)  // pull: a now has both leaves
        return stores
    }

    static func converge(_ stores: LocalReplicationTests.Stores) async throws {
        _ = try await LocalReplicationTests.replicate(stores.a, stores.b)
        _ = try await LocalReplicationTests.replicate(stores.b, stores.a)
        #expect(try await stores.a.conflictedDocumentIDs().isEmpty)
        #expect(try await stores.b.conflictedDocumentIDs().isEmpty)
        #expect(try await LocalReplicationTests.snapshot(stores.a) == (try await LocalReplicationTests.snapshot(stores.b)))
    }

    @Test func conflictedDocumentsAreListedWithEveryLeaf() async throws {
        let stores = try await Self.conflicted()
        #expect(try await stores.a.conflictedDocumentIDs() == ["note"])
        let leaves = try await ConflictResolver.leaves(of: "note", in: stores.a)
        #expect(Set(leaves.compactMap { $0["text"]?.stringValue }) == ["device", "server"])
    }

    @Test func keepLocalKeepsWhatThisDeviceWroteAndBothSidesConverge() async throws {
        let stores = try await Self.conflicted()
        let resolved = try await ConflictResolver.resolve(in: stores.a, against: LocalPeer(stores.b), policy: .keepLocal)
        #expect(resolved.map(\.id) == ["note"] && resolved[0].deletedLeaves.count == 1)
        #expect(try await stores.a.document(id: "note")["text"] == "device")
        try await Self.converge(stores)
        #expect(try await stores.b.document(id: "note")["text"] == "device")
    }

    @Test func keepRemoteKeepsThePeersRevision() async throws {
        let stores = try await Self.conflicted()
        try await ConflictResolver.resolve(in: stores.a, against: LocalPeer(stores.b), policy: .keepRemote)
        try await Self.converge(stores)
        #expect(try await stores.b.document(id: "note")["text"] == "server")
    }

    @Test func keepLocalAndKeepRemoteWithoutThePeerAreRefusedAndChangeNothing() async throws {
        let stores = try await Self.conflicted()
        for policy in [DocumentConflictPolicy.keepLocal, .keepRemote] {
            let error = await #expect(throws: CloudantError.self) {
                try await ConflictResolver.resolve(in: stores.a, policy: policy)
            }
            #expect(error?.code == .invalidInput)
        }
        #expect(try await stores.a.conflictedDocumentIDs() == ["note"])
    }

    @Test func newestKeepsCouchDBsWinnerWithoutAskingThePeer() async throws {
        let stores = try await Self.conflicted()
        let winner = try await stores.a.document(id: "note")
        let resolved = try await ConflictResolver.resolve(in: stores.a, policy: .newest)
        #expect(resolved[0].deletedLeaves.count == 1 && !resolved[0].deletedLeaves.contains(winner["_rev"]?.stringValue ?? ""))
        try await Self.converge(stores)
        #expect(try await stores.b.document(id: "note")["text"] == winner["text"])
    }

    @Test func newestByFieldKeepsTheLatestUpdate() async throws {
        let stores = try await Self.conflicted()
        try await ConflictResolver.resolve(in: stores.a, policy: .newestByField("updated"))
        try await Self.converge(stores)
        #expect(try await stores.a.document(id: "note")["updated"] == "2026-03-01")
    }

    @Test func aCustomPolicySeesTheLeavesSplitBySideAndMayKeepOne() async throws {
        let stores = try await Self.conflicted()
        try await ConflictResolver.resolve(in: stores.a, against: LocalPeer(stores.b), policy: .custom { conflict in
            #expect(conflict.id == "note")
            #expect(conflict.local.map { $0["text"] } == ["device"])
            #expect(conflict.remote.map { $0["text"] } == ["server"])
            return conflict.remote[0]
        })
        try await Self.converge(stores)
        #expect(try await stores.a.document(id: "note")["text"] == "server")
    }

    @Test func aCustomPolicyWithoutThePeerSeesEveryLeafAsLocal() async throws {
        let stores = try await Self.conflicted()
        try await ConflictResolver.resolve(in: stores.a, policy: .custom { conflict in
            #expect(conflict.local.count == 2 && conflict.remote.isEmpty)
            return conflict.local[0]
        })
        #expect(try await stores.a.conflictedDocumentIDs().isEmpty)
    }

    @Test func aCustomPolicyReturningAMergedBodyWritesANewRevisionCombiningEveryLeaf() async throws {
        let stores = try await Self.conflicted()
        let resolved = try await ConflictResolver.resolve(in: stores.a, policy: .custom { conflict in
            ["text": .string(conflict.versions.compactMap { $0["text"]?.stringValue }.sorted().joined(separator: " + "))]
        })
        #expect(resolved[0].rev.hasPrefix("3-"))  // a new revision on top of a leaf
        try await Self.converge(stores)
        #expect(try await stores.b.document(id: "note")["text"] == "device + server")
    }
}
