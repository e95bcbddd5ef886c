import CloudantCore
import CloudantServer
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Testing

/// After a replication, every leaf revision of the source is on the target, whatever its attachments' revpos:
/// CouchDB gives attachments written with `new_edits=false` and no revpos a revpos of 0, and a replicator that
/// trusts "revpos ≤ what the target has" would send those as stubs the target refuses.
@Suite("Every revision replicates: attachments of every revpos")
struct EveryRevisionReplicatesTests {
    static let restored: JSONValue = [
        "_id": "a", "_rev": "1-0123456789abcdef0123456789abcdef",
        "_attachments": ["x.bin": ["content_type": "application/octet-stream", "data": "aGVsbG8=", "revpos": 0]],
    ]

    /// A target that cannot take attachments separately, so every attachment travels inline (`_bulk_get` with
    /// `atts_since`, the path CouchDB's own replicator takes).
    static func inlineOnly(_ base: any ReplicationPeer) -> any ReplicationPeer { ForwardingPeer(base) }

    @Test(arguments: [false, true])
    func aRestoredDocumentWhoseAttachmentHasRevposZeroIsPulledFromTheServer(inline: Bool) async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        let remote = try await setup.remote()
        let server = try setup.serverStore()
        // The repro: written as CouchDB writes a restore, so its attachment has revpos 0.
        _ = try await server.bulkDocs([Self.restored], newEdits: false)
        #expect(try await server.document(id: "a")["_attachments"]?["x.bin"]?["revpos"] == 0)
        let target: any ReplicationPeer = inline ? Self.inlineOnly(LocalPeer(setup.local)) : LocalPeer(setup.local)
        let stats = try await Replicator(source: remote, target: target).run()
        #expect(stats.docsWritten == 1 && stats.failures.isEmpty, "\(stats.failures)")
        #expect(try await setup.local.attachment(documentID: "a", name: "x.bin").data() == Array("hello".utf8))
        #expect(try await setup.local.document(id: "a") == (try await server.document(id: "a")))
        try server.close()
        await setup.stop()
    }

    @Test(arguments: [false, true])
    func aChildWhoseRevposZeroAttachmentTheTargetsAncestorLacksIsPulledWithItsData(inline: Bool) async throws {
        let setup = try await HTTPReplicationTests.Setup.start()
        let remote = try await setup.remote()
        let server = try setup.serverStore()
        // The target holds 1-x without the attachment; the source's 2-y adds it with revpos 0, so `atts_since`
        // (1-x) makes the server send a stub for it, which the target cannot resolve.
        let parent: JSONValue = ["_id": "a", "_rev": "1-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "v": 1]
        _ = try await setup.local.bulkDocs([parent], newEdits: false)
        let child: JSONValue = [
            "_id": "a", "_rev": "2-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "v": 2,
            "_revisions": ["start": 2, "ids": ["bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]],
            "_attachments": ["x.bin": ["content_type": "application/octet-stream", "data": "aGVsbG8=", "revpos": 0]],
        ]
        _ = try await server.bulkDocs([child], newEdits: false)
        let target: any ReplicationPeer = inline ? Self.inlineOnly(LocalPeer(setup.local)) : LocalPeer(setup.local)
        let stats = try await Replicator(source: remote, target: target).run()
        #expect(stats.failures.isEmpty, "\(stats.failures)")
        #expect(try await setup.local.document(id: "a")["_rev"] == "2-bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb")
        #expect(try await setup.local.attachment(documentID: "a", name: "x.bin").data() == Array("hello".utf8))
        try server.close()
        await setup.stop()
    }

    // MARK: The property

    /// One revision of a generated history: its body and its attachments as stored (content and revpos).
    struct Revision {
        var generation: Int
        var hash: String
        var deleted: Bool
        var body: Int
        /// name → (content, revpos written: nil lets the store choose, as a write without revpos does).
        var attachments: [String: (content: [UInt8], revpos: Int?)]
    }

    /// A random history: a trunk and branches off it, each revision changing, keeping or dropping attachments
    /// and giving new content a revpos of its generation, of 0, or none. Returns each branch, oldest first.
    static func history(of id: String, using random: inout SplitMix64) -> [[Revision]] {
        func hash(_ branch: Int, _ generation: Int) -> String {
            String(format: "%08x%08x", branch, generation) + String(repeating: String(format: "%x", branch % 16), count: 16)
        }
        func next(after parent: Revision?, branch: Int, generation: Int) -> Revision {
            var attachments = parent?.attachments ?? [:]
            for name in ["a.bin", "b.txt", "c.bin"] where Int.random(in: 0..<3, using: &random) == 0 {
                if attachments[name] != nil, Bool.random(using: &random) {
                    attachments[name] = nil
                } else {
                    let content = (0..<Int.random(in: 1...40, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                    let revpos: Int? = [0, generation, nil].randomElement(using: &random) ?? nil
                    attachments[name] = (content, revpos)
                }
            }
            return Revision(
                generation: generation, hash: hash(branch, generation), deleted: false, body: Int.random(in: 0..<1000, using: &random),
                attachments: attachments)
        }
        var trunk: [Revision] = []
        for generation in 1...Int.random(in: 1...5, using: &random) {
            trunk.append(next(after: trunk.last, branch: 0, generation: generation))
        }
        var branches = [trunk]
        for branch in 1..<Int.random(in: 1...4, using: &random) {
            let fork = Int.random(in: 0..<trunk.count, using: &random)
            var path = Array(trunk[...fork])
            for generation in (fork + 2)...(fork + 1 + Int.random(in: 1...3, using: &random)) {
                path.append(next(after: path.last, branch: branch, generation: generation))
            }
            branches.append(path)
        }
        for index in branches.indices where Int.random(in: 0..<4, using: &random) == 0 {
            branches[index][branches[index].count - 1].deleted = true
            branches[index][branches[index].count - 1].attachments = [:]
        }
        return branches
    }

    /// The revision at the end of `path`, as a `new_edits=false` write with its history.
    static func document(_ id: String, _ path: ArraySlice<Revision>) -> JSONValue {
        guard let leaf = path.last else { return nil }
        var document: JSONObject = [
            "_id": .string(id), "_rev": .string("\(leaf.generation)-\(leaf.hash)"), "n": .number(JSONNumber(leaf.body)),
            "_revisions": ["start": .number(JSONNumber(leaf.generation)), "ids": .array(path.reversed().map { .string($0.hash) })],
        ]
        if leaf.deleted { document["_deleted"] = true }
        if !leaf.attachments.isEmpty {
            var attachments = JSONObject()
            for (name, attachment) in leaf.attachments {
                var member: JSONObject = [
                    "content_type": .string(name.hasSuffix(".txt") ? "text/plain" : "application/octet-stream"),
                    "data": .string(Base64.encode(attachment.content)),
                ]
                if let revpos = attachment.revpos { member["revpos"] = .number(JSONNumber(revpos)) }
                attachments[name] = .object(member)
            }
            document["_attachments"] = .object(attachments)
        }
        return .object(document)
    }

    /// Every leaf revision of `source` (every branch, deleted ones included) is on `target` with the same body,
    /// attachments (digests, revpos) and history.
    static func missingLeaves(from source: DocumentStore, on target: DocumentStore) async throws -> [String] {
        var missing: [String] = []
        for row in try await source.changes(ChangesOptions(style: .allDocs)).results {
            for rev in row.changes {
                let options = ReadOptions(rev: rev, revs: true, attachmentEncodingInfo: true)
                let original = try await source.document(id: row.id, options: options)
                let copy = try? await target.document(id: row.id, options: options)
                if copy != original { missing.append("\(row.id) \(rev)") }
            }
        }
        return missing
    }

    /// Writes `count` documents with random revision trees into `source`; `target` already holds an ancestor of
    /// some of their branches (so `atts_since` decides what is sent).
    static func seed(
        _ count: Int, into source: DocumentStore, ancestorsInto target: DocumentStore, using random: inout SplitMix64
    ) async throws {
        for index in 0..<count {
            let id = "doc-\(index)"
            let branches = history(of: id, using: &random)
            _ = try await source.bulkDocs(branches.map { document(id, $0[...]) }, newEdits: false)
            if Bool.random(using: &random), let branch = branches.randomElement(using: &random), branch.count > 1 {
                let prefix = branch[..<Int.random(in: 1..<branch.count, using: &random)]
                if prefix.last?.deleted == false { _ = try await target.bulkDocs([document(id, prefix)], newEdits: false) }
            }
        }
    }

    @Test(arguments: Array(1...24) as [UInt64])
    func everyLeafOfARandomSourceIsOnTheTargetAfterReplicating(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed &* 0x9E37_79B9)
        let stores = try LocalReplicationTests.Stores()
        let (source, target) = (stores.a, stores.b)
        try await Self.seed(12, into: source, ancestorsInto: target, using: &random)
        var options = ReplicationOptions(batchSize: Int.random(in: 1...7, using: &random), fetchChunk: Int.random(in: 1...5, using: &random))
        options.separateAttachmentSize = [8, 32, Int.max].randomElement(using: &random) ?? Int.max
        let inline = Bool.random(using: &random)
        let targetPeer: any ReplicationPeer = inline ? Self.inlineOnly(LocalPeer(target)) : LocalPeer(target)
        let stats = try await Replicator(source: LocalPeer(source), target: targetPeer, options: options).run()
        #expect(stats.failures.isEmpty, "seed \(seed): \(stats.failures.prefix(3))")
        let missing = try await Self.missingLeaves(from: source, on: target)
        #expect(missing.isEmpty, "seed \(seed) (inline \(inline), separate above \(options.separateAttachmentSize)): \(missing.prefix(5))")
    }

    @Test(arguments: Array(1...6) as [UInt64])
    func everyLeafOfARandomServerDatabaseIsPulledOverHTTP(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed &* 0x51_7CC1)
        let setup = try await HTTPReplicationTests.Setup.start()
        let remote = try await setup.remote()
        let server = try setup.serverStore()
        try await Self.seed(10, into: server, ancestorsInto: setup.local, using: &random)
        var options = ReplicationOptions(batchSize: Int.random(in: 1...7, using: &random))
        options.separateAttachmentSize = [8, Int.max].randomElement(using: &random) ?? Int.max
        let inline = Bool.random(using: &random)
        let target: any ReplicationPeer = inline ? Self.inlineOnly(LocalPeer(setup.local)) : LocalPeer(setup.local)
        let stats = try await Replicator(source: remote, target: target, options: options).run()
        #expect(stats.failures.isEmpty, "seed \(seed): \(stats.failures.prefix(3))")
        let missing = try await Self.missingLeaves(from: server, on: setup.local)
        #expect(missing.isEmpty, "seed \(seed) (inline \(inline)): \(missing.prefix(5))")
        try server.close()
        await setup.stop()
    }
}
