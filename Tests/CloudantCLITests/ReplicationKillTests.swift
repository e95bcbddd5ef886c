import CloudantCore
import CloudantStore
import CloudantSync
import CloudantTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Push and pull replication between a local store and a real `cloudant serve` process
/// that is killed with SIGKILL at points the seed chooses — while `_bulk_docs`, `_changes`, `_revs_diff`,
/// a fetch or a checkpoint write is in flight, just before one, or just after one answered (between
/// checkpoints) — and restarted on the same data folder and port while the replicators retry. Replications
/// that gave up are run again and resume from their checkpoints. A client keeps writing to the server
/// throughout. At the end both sides must hold exactly the same documents: the same leaf revisions, winners,
/// conflicts, deletions, bodies and attachment digests; and every write the server acknowledged must be
/// there, on both sides.
///
/// `CLOUDANT_REPLICATION_KILL_SCALE` multiplies the seeds (default 10), the documents and the kills per seed.
@Suite("Replication while cloudant serve is killed", .serialized)
struct ReplicationKillTests {
    static let scale = max(1, Int(ProcessInfo.processInfo.environment["CLOUDANT_REPLICATION_KILL_SCALE"] ?? "") ?? 1)

    @Test(arguments: Array(1...UInt64(10 * scale)))
    func pushAndPullConvergeWhenTheServerIsKilledAtRandomPoints(seed: UInt64) async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SplitMix64(seed: seed &* 0x5DEE_CE66)
        let server = try await KillableServer(folder: folder.appendingPathComponent("server"))
        defer { server.stop() }
        #expect(await ServeHTTP.request("PUT", "/cloud", port: server.port)?.status == 201)
        let local = try DocumentStore.open(name: "device", in: StoreDirectory(path: folder.appendingPathComponent("device").path))
        let documents = 30 * Self.scale
        try await Self.populate(local: local, port: server.port, documents: documents, using: &generator)

        // The kills this seed plans: each one fires once, at the n-th call of its kind in its direction.
        let plan = KillPlan.random(count: Int.random(in: 2...3, using: &generator) * Self.scale, using: &generator)
        let writer = AcknowledgedWriter(port: server.port, prefix: "w\(seed)")
        writer.start()
        let url = URL(string: "http://127.0.0.1:\(server.port)/cloud")!
        // Few, quick retries for some seeds (the replication gives up and is run again from its checkpoint),
        // enough to ride out a restart for others (the running replication resumes by itself).
        let retry =
            Bool.random(using: &generator)
            ? RetryPolicy(maximumAttempts: 2, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(10))
            : RetryPolicy(maximumAttempts: 8, initialDelay: .milliseconds(50), maximumDelay: .milliseconds(400))
        let options = ReplicationOptions(batchSize: Int.random(in: 5...20, using: &generator), retry: retry)
        var rounds = 0
        var converged = false
        // A round fires a kill or two as a rule; the cap only stops a broken replication from looping for ever.
        let maximumRounds = 20 + 10 * plan.pending.count
        while rounds < maximumRounds, !converged {
            rounds += 1
            if plan.isDone {
                await writer.stop()  // the last rounds run without new writes, so they can settle
            } else {
                // A local edit every round, so that pushes keep calling `_revs_diff` and `_bulk_docs` until every
                // planned kill fired (the writer does the same for pulls).
                try await local.put(["_id": .string("device-round-\(rounds)"), "round": .number(JSONNumber(rounds))])
            }
            let remote = TrippingPeer(inner: try HTTPPeer(url: url), direction: .remote, plan: plan, server: server)
            let device = TrippingPeer(inner: LocalPeer(local), direction: .local, plan: plan, server: server)
            async let push = Self.outcome { try await Replicator(source: device, target: remote, options: options).run() }
            async let pull = Self.outcome { try await Replicator(source: remote, target: device, options: options).run() }
            let (pushed, pulled) = await (push, pull)
            // Converged once both ran to the end with nothing left to move and no kill pending or writes coming.
            converged = plan.isDone && !writer.isRunning && pushed?.docsWritten == 0 && pulled?.docsWritten == 0
        }
        #expect(converged, "seed \(seed): no convergence after \(rounds) rounds; kills fired: \(plan.fired)")
        #expect(plan.isDone, "seed \(seed): kills not reached: \(plan.pending)")

        // Compare the two stores directly: the server's file as the killed-and-restarted server left it.
        server.stop()
        let serverStore = try DocumentStore.open(name: "cloud", in: StoreDirectory(path: folder.appendingPathComponent("server").path))
        let deviceState = try await Self.state(of: local)
        let serverState = try await Self.state(of: serverStore)
        #expect(deviceState.count >= documents, "seed \(seed): documents went missing")
        #expect(deviceState == serverState, "seed \(seed): \(Self.difference(deviceState, serverState))")
        var lost: [String] = []
        for (id, rev) in writer.acknowledged {
            for (side, store) in [("server", serverStore), ("device", local)] {
                let found = try? await store.document(id: id, options: ReadOptions(rev: rev))
                if found == nil { lost.append("\(id)@\(rev) on the \(side)") }
            }
        }
        #expect(lost.isEmpty, "seed \(seed): acknowledged writes lost: \(lost.prefix(5))")
        #expect(!writer.acknowledged.isEmpty, "seed \(seed): the writer got no write acknowledged; nothing was checked")
        KillFigures.shared.add(seed: seed, fired: plan.fired, documents: deviceState.count, acknowledged: writer.acknowledged.count, rounds: rounds)
        print(KillFigures.shared.summary)  // cumulative: the last line printed holds the figures of every seed
    }

    /// The replication's stats, or nil when it gave up (the next round resumes it).
    static func outcome(_ run: @Sendable () async throws -> ReplicationStats) async -> ReplicationStats? {
        try? await run()
    }

    /// Documents on both sides before any replication: bodies, edits, deletions, attachments, conflicts made
    /// with `new_edits=false`, and documents both sides edit differently (conflicts once replicated).
    static func populate(local: DocumentStore, port: Int, documents: Int, using generator: inout SplitMix64) async throws {
        var remote: [JSONValue] = []
        for index in 0..<documents {
            var body: JSONObject = ["n": .number(JSONNumber(index)), "text": .string(String(repeating: "x", count: index % 7))]
            if index % 4 == 0 {
                let bytes = (0..<(16 + index)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
                body["_attachments"] = ["a.bin": ["content_type": "application/octet-stream", "data": .string(Base64.encode(bytes))]]
            }
            var localBody = body
            localBody["_id"] = .string("device-\(index)")
            let written = try await local.put(localBody)
            if index % 5 == 1 { try await local.delete(id: "device-\(index)", rev: written.rev) }
            var remoteBody = body
            remoteBody["_id"] = .string("server-\(index)")
            remote.append(.object(remoteBody))
        }
        // Conflicted histories on both sides, and the same ids on both sides with different revisions.
        for index in 0..<(documents / 5) {
            // 32 hex digits: the index, then one digit repeated that tells the branches apart.
            let hash = { (side: String) in String(format: "%08x", index) + String(repeating: side, count: 24) }
            let branches: [JSONValue] = [
                ["_id": .string("tree-\(index)"), "_rev": .string("2-\(hash("a"))"), "_revisions": ["start": 2, "ids": [.string(hash("a")), .string(hash("0"))]], "b": "a"],
                ["_id": .string("tree-\(index)"), "_rev": .string("2-\(hash("b"))"), "_revisions": ["start": 2, "ids": [.string(hash("b")), .string(hash("0"))]], "b": "b", "_deleted": .bool(index % 2 == 0)],
            ]
            _ = try await local.bulkDocs([branches[0]], newEdits: false)
            let bulk = JSONValue.object(["docs": .array([branches[1]]), "new_edits": false])
            _ = await ServeHTTP.request("POST", "/cloud/_bulk_docs", body: bulk.jsonString(), port: port)
            try await local.put(["_id": .string("both-\(index)"), "side": "device"])
            remote.append(["_id": .string("both-\(index)"), "side": "server", "k": .number(JSONNumber(Int.random(in: 0..<1000, using: &generator)))])
        }
        let answer = await ServeHTTP.request("POST", "/cloud/_bulk_docs", body: JSONValue.object(["docs": .array(remote)]).jsonString(), port: port)
        #expect(answer?.status == 201, "the server's documents are written: \(answer?.body.prefix(200) ?? "no answer")")
    }

    /// Every document with every leaf: revision, deletion, body and attachment digests, by id and leaf.
    static func state(of store: DocumentStore) async throws -> [String: [String: String]] {
        var state: [String: [String: String]] = [:]
        for row in try await store.changes(ChangesOptions(style: .allDocs)).results {
            var leaves: [String: String] = [:]
            for rev in row.changes {
                let document = try await store.document(id: row.id, options: ReadOptions(rev: rev))
                leaves[rev] = document.jsonString(sortedKeys: true)
            }
            let winner = try? await store.document(id: row.id, options: ReadOptions(conflicts: true, deletedConflicts: true))
            leaves["winner"] = winner.map { $0.jsonString(sortedKeys: true) } ?? "deleted"
            state[row.id] = leaves
        }
        return state
    }

    static func difference(_ a: [String: [String: String]], _ b: [String: [String: String]]) -> String {
        let onlyA = Set(a.keys).subtracting(b.keys).sorted().prefix(3)
        let onlyB = Set(b.keys).subtracting(a.keys).sorted().prefix(3)
        let differing = a.keys.filter { b[$0] != nil && b[$0] != a[$0] }.sorted().prefix(3)
        return "only on the device: \(onlyA), only on the server: \(onlyB), differing: \(differing.map { "\($0): \(a[$0] ?? [:]) vs \(b[$0] ?? [:])" })"
    }
}

private extension JSONObject {
    func jsonString(sortedKeys: Bool) -> String { JSONValue.object(self).jsonString(sortedKeys: sortedKeys) }
}

/// A `cloudant serve` process that can be killed with SIGKILL and restarted on the same folder and port.
/// `@unchecked Sendable`: `lock` protects `process`.
final class KillableServer: @unchecked Sendable {
    let folder: URL
    private(set) var port = 0
    private let lock = NSLock()
    private var process: ServeProcess?

    init(folder: URL) async throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let first = try await ServeProcess.start(folder: folder)
        port = first.port
        process = first
    }

    /// SIGKILL, then a new server on the same folder and port (retrying while the port is still held).
    func killAndRestart() async {
        let killed = lock.withLock {
            defer { process = nil }
            return process
        }
        killed?.kill()
        for _ in 0..<50 {
            if let next = try? await ServeProcess.start(["serve", "--port", "\(port)", "--data", folder.path], in: folder),
                next.port == port
            {
                lock.withLock { process = next }
                return
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Kills the server for good.
    func stop() {
        lock.withLock {
            process?.kill()
            process = nil
        }
    }
}

/// Where a kill lands: which side of which replication call, and when.
struct KillPoint: Sendable, Hashable, CustomStringConvertible {
    enum Call: String, Sendable, CaseIterable {
        case changes = "_changes", revsDiff = "_revs_diff", write = "_bulk_docs", fetch = "fetch"
        case readCheckpoint = "checkpoint read", writeCheckpoint = "checkpoint write", info = "db info"
    }

    enum Moment: String, Sendable, CaseIterable {
        /// The server dies just before the request is sent.
        case before
        /// The request is sent and the server dies 0–4 ms later, usually mid-request.
        case during
        /// The server dies right after the answer arrived: the replicator carries on as if nothing happened.
        case after
    }

    /// The call on the server's side: `_changes` and fetches happen in pulls, `_revs_diff` and `_bulk_docs`
    /// in pushes, checkpoints and info in both.
    var call: Call
    var moment: Moment
    /// Which occurrence of the call (1 = the first) fires it.
    var occurrence: Int
    var delayMicroseconds: UInt32

    var description: String { "\(moment.rawValue) \(call.rawValue) #\(occurrence)" }
}

/// The seed's kills, fired in order: the next kill arms once the previous one fired.
/// `@unchecked Sendable`: `lock` protects every variable.
final class KillPlan: @unchecked Sendable {
    private let lock = NSLock()
    private var points: [KillPoint]
    private var counts: [KillPoint.Call: Int] = [:]
    private(set) var firedPoints: [KillPoint] = []

    init(points: [KillPoint]) { self.points = points }

    static func random(count: Int, using generator: inout SplitMix64) -> KillPlan {
        KillPlan(
            points: (0..<count).map { _ in
                KillPoint(
                    call: KillPoint.Call.allCases.randomElement(using: &generator) ?? .write,
                    moment: KillPoint.Moment.allCases.randomElement(using: &generator) ?? .during,
                    occurrence: Int.random(in: 1...3, using: &generator),
                    delayMicroseconds: UInt32.random(in: 0...4_000, using: &generator))
            })
    }

    var isDone: Bool { lock.withLock { points.isEmpty } }
    var pending: [KillPoint] { lock.withLock { points } }
    var fired: [KillPoint] { lock.withLock { firedPoints } }

    /// Counts a call to the server; returns the kill it triggers, if any (which is then used up).
    func arrive(_ call: KillPoint.Call) -> KillPoint? {
        lock.withLock {
            counts[call, default: 0] += 1
            guard let next = points.first, next.call == call, counts[call, default: 0] >= next.occurrence else { return nil }
            points.removeFirst()
            firedPoints.append(next)
            counts = [:]
            return next
        }
    }
}

/// A replication peer that counts its calls to the server and kills (and restarts) the server at the
/// planned points. Wrapping the local store, it only passes calls through: they neither count nor kill.
struct TrippingPeer: ReplicationPeer {
    enum Direction: Sendable { case remote, local }

    let inner: any ReplicationPeer
    let direction: Direction
    let plan: KillPlan
    let server: KillableServer

    private func around<T: Sendable>(_ call: KillPoint.Call, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        guard direction == .remote, let point = plan.arrive(call) else { return try await work() }
        switch point.moment {
        case .before:
            await server.killAndRestart()
            return try await work()
        case .during:
            let running = Task { try await work() }
            try? await Task.sleep(for: .microseconds(point.delayMicroseconds))
            await server.killAndRestart()
            return try await running.value
        case .after:
            let result = try await work()
            await server.killAndRestart()
            return result
        }
    }

    func identity() async throws -> String { try await inner.identity() }
    func info() async throws -> PeerInfo { try await around(.info) { try await inner.info() } }
    func localDocument(id: String) async throws -> JSONObject? {
        try await around(.readCheckpoint) { try await inner.localDocument(id: id) }
    }
    func putLocalDocument(id: String, body: JSONObject) async throws {
        try await around(.writeCheckpoint) { try await inner.putLocalDocument(id: id, body: body) }
    }
    func changes(_ request: ChangesRequest) async throws -> ChangesPage { try await around(.changes) { try await inner.changes(request) } }
    func revsDiff(_ revisions: [String: [String]]) async throws -> [String: MissingRevisions] {
        try await around(.revsDiff) { try await inner.revsDiff(revisions) }
    }
    func fetch(_ requests: [RevisionRequest]) async throws -> [FetchedRevision] { try await around(.fetch) { try await inner.fetch(requests) } }
    func write(_ documents: [JSONObject]) async throws -> [WriteFailure] { try await around(.write) { try await inner.write(documents) } }
    func ensureFullCommit() async throws { try await inner.ensureFullCommit() }
}

/// A client writing new documents to the server throughout, one request at a time; it remembers each
/// write the server acknowledged (201 with a revision).
/// `@unchecked Sendable`: `lock` protects every variable.
final class AcknowledgedWriter: @unchecked Sendable {
    private let port: Int
    private let prefix: String
    private let lock = NSLock()
    private var written: [(id: String, rev: String)] = []
    private var running = false
    private var thread: Thread?
    private let finished = DispatchSemaphore(value: 0)

    init(port: Int, prefix: String) {
        self.port = port
        self.prefix = prefix
    }

    var acknowledged: [(id: String, rev: String)] { lock.withLock { written } }
    var isRunning: Bool { lock.withLock { running } }

    func start() {
        lock.withLock { running = true }
        let thread = Thread { [self] in
            var sequence = 0
            while isRunning {
                sequence += 1
                let id = "\(prefix)-\(sequence)"
                if let answer = ServeHTTP.request("PUT", "/cloud/\(id)", body: #"{"written":\#(sequence)}"#, port: port),
                    answer.status == 201,
                    let rev = (try? JSONValue(parsing: answer.body))?["rev"]?.stringValue
                {
                    lock.withLock { written.append((id, rev)) }
                }
                // About 50 writes a second: a steady trickle that each pull round can catch up with.
                Thread.sleep(forTimeInterval: 0.02)
            }
            finished.signal()
        }
        self.thread = thread
        thread.start()
    }

    /// Stops writing and waits (on a thread of its own) for the request in flight.
    func stop() async {
        let wasRunning = lock.withLock {
            defer { running = false }
            return running
        }
        let finished = finished
        if wasRunning { await onOwnThread { finished.wait() } }
    }
}

/// What every seed survived, for the closing figures.
/// `@unchecked Sendable`: `lock` protects `rows`.
final class KillFigures: @unchecked Sendable {
    static let shared = KillFigures()
    private let lock = NSLock()
    private var rows: [(seed: UInt64, fired: [KillPoint], documents: Int, acknowledged: Int, rounds: Int)] = []

    func add(seed: UInt64, fired: [KillPoint], documents: Int, acknowledged: Int, rounds: Int) {
        lock.withLock { rows.append((seed, fired, documents, acknowledged, rounds)) }
    }

    var summary: String {
        lock.withLock {
            let kills = rows.flatMap(\.fired)
            let byCall = Dictionary(grouping: kills, by: { "\($0.moment.rawValue) \($0.call.rawValue)" }).mapValues(\.count)
            return "replication kill test: \(rows.count) seeds, \(kills.count) kill points survived "
                + "(\(byCall.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))), "
                + "\(rows.map(\.documents).reduce(0, +)) documents compared, \(rows.map(\.acknowledged).reduce(0, +)) acknowledged writes checked, "
                + "\(rows.map(\.rounds).reduce(0, +)) replication rounds"
        }
    }
}
