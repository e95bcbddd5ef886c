import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// A long-poll's `timeout` is capped at `changes_timeout` (60 s, as CouchDB's), a graceful shutdown ends waiting
/// feeds with an answer, hung-up clients leave no socket in CLOSE-WAIT, and idle connections are closed.
@Suite("Timeouts, hang-ups and graceful shutdown")
struct ShutdownAndTimeoutTests {
    private static let auth = "Authorization: Basic YWRtaW46czNjcmV0\r\n"

    @Test func aLongPollTimeoutIsCappedAtTheChangesTimeout() async throws {
        // 1.5 s cap: a `timeout` of a day must still answer, with nothing changed, and the same for
        // heartbeats (the cap bounds them too).
        try await withLiveServer({ $0.changesTimeout = 1_500 }) { server in
            _ = try await server.admin.send("PUT", "/db")
            let answer = try await server.admin.get("/db/_changes?feed=longpoll&since=now&timeout=86400000")
            #expect(answer.status == 200)
            #expect(answer.json["results"] == [])
            let continuous = try await server.admin.get("/db/_changes?feed=continuous&since=now&timeout=86400000")
            #expect(continuous.text.contains("\"last_seq\""))
        }
    }

    @Test func gracefulShutdownEndsAWaitingLongPollWithAnAnswer() async throws {
        let server = try await LiveServer.start()
        _ = try await server.admin.send("PUT", "/db")
        let connection = try RawConnection(port: server.port)
        connection.send("GET /db/_changes?feed=longpoll&since=now&heartbeat=50 HTTP/1.1\r\nHost: x\r\n\(Self.auth)\r\n")
        // The feed is waiting once it streams (its head sent, heartbeats going out).
        try await server.waitForOpenFeeds()
        await server.server.shutdown()
        let raw = try await connection.readToEndOffPool()
        connection.close()
        let answer = try TestClient.parse(raw, isHead: false)
        #expect(answer.status == 200)
        #expect(answer.text.contains("\"last_seq\""), "the feed was cut instead of ended: \(answer.text)")
        await server.stop()
    }

    @Test func aContinuousFeedWithHeartbeatsEndsWhenItsClientGoesAway() async throws {
        // Heartbeats keep a continuous feed open past any timeout, as in CouchDB: only the client ends it. The
        // server's cap is 50 ms here; the feed is still streaming heartbeats once several times that have passed.
        let server = try await LiveServer.start { $0.changesTimeout = 50 }
        _ = try await server.admin.send("PUT", "/db")
        let connection = try RawConnection(port: server.port)
        connection.send("GET /db/_changes?feed=continuous&since=now&heartbeat=10 HTTP/1.1\r\nHost: x\r\n\(Self.auth)\r\n")
        try await server.waitForOpenFeeds()
        let opened = ContinuousClock.now
        var heartbeats = 0
        while ContinuousClock.now - opened < .milliseconds(500) {
            heartbeats += 1
            _ = try await connection.readUntil("\r\n\n\r\n", count: heartbeats)
        }
        #expect(server.openFeeds == 1)
        connection.close()
        try await waitUntil("the feed ending after its client left") { server.openFeeds == 0 }
        await server.stop()
    }

    @Test func gracefulShutdownEndsAContinuousFeedWithItsLastSeqLine() async throws {
        let server = try await LiveServer.start()
        _ = try await server.admin.send("PUT", "/db")
        _ = try await server.admin.put("/db/a", ["v": 1])
        let connection = try RawConnection(port: server.port)
        connection.send("GET /db/_changes?feed=continuous&heartbeat=50 HTTP/1.1\r\nHost: x\r\n\(Self.auth)\r\n")
        try await server.waitForOpenFeeds()
        await server.server.shutdown()
        let answer = try TestClient.parse(try await connection.readToEndOffPool(), isHead: false)
        connection.close()
        // Ended, not cut: the last line says where to resume, after whatever the feed had sent.
        let resumeAt = answer.text.contains("\"id\":\"a\"") ? 1 : 0
        #expect(answer.text.contains("\"last_seq\":\"\(resumeAt)-"), "\(answer.text)")
        await server.stop()
    }

    @Test func anIdleConnectionIsClosedByTheServer() async throws {
        try await withLiveServer({ $0.idleTimeout = 1 }) { server in
            let connection = try RawConnection(port: server.port)
            // Nothing sent: the server must close it (the read would time out after 20 s otherwise).
            let received = try await connection.readToEndOffPool()
            connection.close()
            #expect(received.isEmpty)
            // A keep-alive connection after its answer, too.
            let keptAlive = try RawConnection(port: server.port)
            keptAlive.send("GET /_up HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try TestClient.parse(try await keptAlive.readToEndOffPool(), isHead: false)
            keptAlive.close()
            #expect(answer.status == 200)
        }
    }

    @Test func aKeepAliveConnectionKeepsNothingPerRequest() async throws {
        try await withLiveServer { server in
            let connection = try RawConnection(port: server.port)
            for _ in 0..<50 { connection.send("GET /_up HTTP/1.1\r\nHost: x\r\n\r\n") }
            connection.send("GET /_up HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let raw = try await connection.readToEndOffPool()
            connection.close()
            #expect(String(decoding: raw, as: UTF8.self).components(separatedBy: "HTTP/1.1 200").count == 52)
            let watchers = server.server.endpoint.connectionWatchers
            try await waitUntil("the closed connection forgotten") { watchers.openConnections == 0 }
            #expect(watchers.pendingActions == 0)
        }
    }

    @Test func aClientThatHangsUpDuringALongPollIsLetGo() async throws {
        // The feed would wait an hour; the server must notice the hang-up, end the feed and close its side.
        try await withLiveServer({ $0.changesTimeout = 3_600_000 }) { server in
            _ = try await server.admin.send("PUT", "/db")
            let connection = try RawConnection(port: server.port)
            connection.send("GET /db/_changes?feed=longpoll&since=now&timeout=3600000 HTTP/1.1\r\nHost: x\r\n\(Self.auth)\r\n")
            try await server.waitForOpenFeeds()
            connection.shutdownWriting()
            try await waitUntil("the feed ending after its client left") { server.openFeeds == 0 }
            connection.close()
        }
    }
}
