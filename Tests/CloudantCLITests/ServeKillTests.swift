import CloudantTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Writers, repeated `DELETE /db` + `PUT /db`, `kill -9` of `cloudant serve` at a
/// random moment, and a restart on the same folder, several times. Every acknowledged write must be found
/// after the restart, unless its database was deleted after it; nothing of a deleted database may come
/// back; SQLite's integrity check must pass. `CLOUDANT_STRESS_SCALE` multiplies the number of kills
/// (default 3 kills, each 0.5-1.2 s after the round's first acknowledged write, deletions during the first
/// 20-80 % of that).
@Suite("cloudant serve: kill -9 during deletes and writes", .serialized)
struct ServeKillTests {
    static let scale = Int(ProcessInfo.processInfo.environment["CLOUDANT_STRESS_SCALE"] ?? "") ?? 1

    @Test func acknowledgedWritesSurviveKillDuringDeleteAndRecreate() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SplitMix64(seed: 20261124)
        let kills = 3 * Self.scale
        var checked = 0
        var totals = (writes: 0, acknowledged: 0, cycles: 0)
        for round in 0..<kills {
            var server = try await ServeProcess.start(folder: folder)
            let log = StressLog<ServeKillEvent>()
            if round == 0 { #expect(await ServeHTTP.request("PUT", "/db", port: server.port)?.status == 201) }
            _ = await ServeHTTP.request("PUT", "/db", port: server.port)  // after a kill mid-deletion it may be gone
            let port = server.port
            // Deletions stop part-way through the round, so the kill also finds a database with many
            // writes since its creation, not only one a few milliseconds old.
            let runFor = Double.random(in: 0.5...1.2, using: &generator)
            let deleteFor = runFor * Double.random(in: 0.2...0.8, using: &generator)
            // The round's clock starts at the first acknowledged write, however long a loaded machine takes to get
            // there; the deleter starts then too.
            let started = DispatchGroup()
            started.enter()
            let finished = DispatchGroup()
            let threads = (0..<3).map { writer in
                Thread {
                    defer { finished.leave() }
                    var sequence = 0
                    while !log.stopped {
                        sequence += 1
                        let id = "r\(round)-w\(writer)-\(sequence)"
                        let sent = log.tick()
                        guard let answer = ServeHTTP.request("PUT", "/db/\(id)", body: #"{"n":\#(sequence)}"#, port: port) else {
                            continue  // the server is gone: not acknowledged
                        }
                        log.write(id: id, sent: sent, acknowledged: log.tick(), status: answer.status)
                        if answer.status == 201, log.isFirstAcknowledgement() { started.leave() }
                    }
                }
            } + [
                Thread {
                    defer { finished.leave() }
                    _ = started.wait(timeout: .now() + .seconds(Int(TestDeadline.generous.components.seconds)))
                    let deleteUntil = Date().addingTimeInterval(deleteFor)
                    while !log.stopped, Date() < deleteUntil {
                        Thread.sleep(forTimeInterval: 0.03)
                        let deleteSent = log.tick()
                        let deleted = ServeHTTP.request("DELETE", "/db", port: port)
                        log.event(.deleteAnswered(sent: deleteSent, status: deleted?.status, at: log.tick()))
                        let createSent = log.tick()
                        let created = ServeHTTP.request("PUT", "/db", port: port)
                        log.event(.createAnswered(sent: createSent, status: created?.status, at: log.tick()))
                    }
                },
            ]
            for thread in threads {
                finished.enter()
                thread.start()
            }
            await onOwnThread { _ = started.wait(timeout: .now() + .seconds(Int(TestDeadline.generous.components.seconds))) }
            try await Task.sleep(for: .seconds(runFor))
            server.kill()
            log.stop()
            // The threads' last requests fail at once: nothing listens on the port any more.
            await onOwnThread { finished.wait() }

            server = try await ServeProcess.start(folder: folder)
            defer { server.kill() }
            let restartedPort = server.port
            let outcome = await onOwnThread { log.verify(port: restartedPort) }
            #expect(outcome.lost.isEmpty, "round \(round): \(outcome.lost.count) acknowledged writes lost: \(outcome.lost.prefix(5))")
            #expect(outcome.resurrected.isEmpty, "round \(round): \(outcome.resurrected.count) writes of a deleted database came back")
            #expect(outcome.unexpectedStatuses.isEmpty, "round \(round): statuses \(outcome.unexpectedStatuses)")
            checked += outcome.checked
            totals.writes += log.writes.count
            totals.acknowledged += log.writes.filter { $0.status == 201 }.count
            totals.cycles += log.events.count / 2
            server.kill()
        }
        #expect(checked > 0, "no write was checked; the test proved nothing")
        let integrity = try await CLIRunner.run(["db", "check", "db", "--data", folder.path])
        if integrity.status == 0 {
            #expect(integrity.stdout.contains("\"ok\""), "\(integrity.stdout)")
        }
        print(
            "serve kill -9 stress: \(kills) kills, \(totals.cycles) delete/create cycles, \(totals.writes) writes "
                + "(\(totals.acknowledged) acknowledged), \(checked) checked after restart")
    }
}

/// One blocking HTTP/1.1 request per connection (`Connection: close`) to 127.0.0.1.
enum ServeHTTP {
    struct Answer {
        var status: Int
        var body: String
    }

    /// ``request(_:_:body:port:)`` for a task: the request runs on a thread of its own, as waiting for a
    /// server process (slow to answer on a loaded machine) on one of the cooperative threads, two on two
    /// cores, stops every task of the test process while it lasts.
    static func request(_ method: String, _ path: String, body: String = "", port: Int) async -> Answer? {
        await onOwnThread { request(method, path, body: body, port: port) }
    }

    /// The answer, or `nil` when the connection failed or was cut before a complete answer.
    static func request(_ method: String, _ path: String, body: String = "", port: Int) -> Answer? {
        guard let connection = try? RawConnection(port: port) else { return nil }
        defer { connection.close() }
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if method == "PUT" || method == "POST" {
            text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        connection.send(text + "\r\n" + body)
        guard let received = try? connection.readToEnd() else { return nil }
        guard let headEnd = received.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let head = String(decoding: received[..<headEnd.lowerBound], as: UTF8.self)
        guard let status = Int(head.split(separator: " ").dropFirst().first ?? "") else { return nil }
        let bodyBytes = Array(received[headEnd.upperBound...])
        // A kill can cut the body; only a complete answer counts.
        if let lengthLine = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
            let length = Int(lengthLine.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? ""),
            bodyBytes.count < length
        {
            return nil
        }
        return Answer(status: status, body: String(decoding: bodyBytes, as: UTF8.self))
    }
}

/// What the deleter saw in one round, on the log's counter.
enum ServeKillEvent: Sendable {
    case deleteAnswered(sent: Int, status: Int?, at: Int)
    case createAnswered(sent: Int, status: Int?, at: Int)
}

/// What the check of one round found.
struct ServeKillOutcome {
    var lost: [String] = []
    var resurrected: [String] = []
    var unexpectedStatuses: Set<Int> = []
    var checked = 0
}

extension StressLog<ServeKillEvent> {
    /// Reads the restarted server's documents and checks them against the log.
    func verify(port: Int) -> ServeKillOutcome {
        var outcome = ServeKillOutcome()
        let (writes, events) = snapshot
        outcome.unexpectedStatuses = Set(writes.map(\.status)).subtracting([201, 404])
        let exists = ServeHTTP.request("GET", "/db", port: port)?.status == 200
        var stored: Set<String> = []
        if exists, let listing = ServeHTTP.request("GET", "/db/_all_docs", port: port),
            let json = try? JSONSerialization.jsonObject(with: Data(listing.body.utf8)) as? [String: Any]
        {
            stored = Set((json["rows"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String })
        }
        // An acknowledged write was applied while the database existed, somewhere between its send and its answer.
        // It must be found unless a deletion may have come after it: one acknowledged after the write was sent, or
        // one in flight at the kill if the database is gone. (A deletion in flight with the database still there
        // was not applied: the deleter sends nothing after it. A creation in flight at the kill may have been
        // applied although its answer never came, so it tells nothing about which writes remain.)
        var acknowledgedDeletions: [Int] = []
        var deletionInFlight = false
        var lastAcknowledgedDeleteSent = 0
        for case .deleteAnswered(let sent, let status, let at) in events {
            if status == 200 {
                acknowledgedDeletions.append(at)
                lastAcknowledgedDeleteSent = sent
            } else if status == nil {
                deletionInFlight = true
            }
        }
        if exists || !deletionInFlight {
            let mustExist = writes.filter { write in
                write.status == 201 && !acknowledgedDeletions.contains { $0 > write.sent }
            }
            outcome.checked = mustExist.count
            outcome.lost = mustExist.filter { !stored.contains($0.id) }.map(\.id)
        }
        // Writes acknowledged before an acknowledged deletion belonged to a database that is gone.
        outcome.resurrected = writes.filter { $0.status == 201 && $0.acknowledged < lastAcknowledgedDeleteSent && stored.contains($0.id) }
            .map(\.id)
        return outcome
    }
}
