import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// What an anonymous or ordinary user can make the server hold or run: request bodies before login, attachments
/// served on the dashboard's origin, logins posted from other sites, and how refused requests are recorded.
@Suite("Requests from strangers: bodies, attachments, logins, the audit trail")
struct RequestHardeningTests {
    private static func header(_ answer: [UInt8]) -> String {
        String(decoding: answer.prefix(while: { $0 != 0 }), as: UTF8.self)
    }

    @Test func anonymousBodiesAreCappedEachAndShareOneBudget() async throws {
        try await withLiveServer({ $0.anonymousBodyBudget = 100_000 }) { server in
            // Over the anonymous limit: refused as it is declared, whatever follows.
            let big = try await server.anonymous.send(
                "POST", "/_session", body: Data(repeating: UInt8(ascii: "a"), count: 1_000_000), contentType: "application/json")
            #expect(big.status == 413)
            // Two anonymous bodies being read hold 80 KB of the 100 KB budget; a third is refused at once.
            let bodies = server.server.endpoint.anonymousBodies
            var open: [RawConnection] = []
            for _ in 0..<2 {
                let connection = try RawConnection(port: server.port)
                connection.send(
                    "POST /_session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
                        + String(repeating: "a", count: 40_000))
                open.append(connection)
            }
            try await waitUntil { bodies.held == 80_000 }
            let third = try RawConnection(port: server.port)
            third.send(
                "POST /_session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n"
                    + String(repeating: "a", count: 40_000))
            let refused = try await third.readUntil("\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 503"), "\(refused)")
            third.close()
            for connection in open { connection.close() }
            try await waitUntil { bodies.held == 0 }
            // A logged-in user's body is not held to it.
            #expect(try await server.admin.send("PUT", "/db").status == 201)
            let large: JSONValue = ["docs": .array((0..<200).map { ["_id": .string("d\($0)"), "pad": .string(String(repeating: "x", count: 1_000))] })]
            #expect(try await server.admin.post("/db/_bulk_docs", large).status == 201)
        }
    }

    @Test func attachmentsAreServedSandboxedAndActiveTypesAsDownloads() async throws {
        try await withLiveServer { server in
            let admin = server.admin
            #expect(try await admin.send("PUT", "/db").status == 201)
            let created = try await admin.put("/db/page", ["v": 1])
            let rev = try #require(created.json["rev"]?.stringValue)
            let html = try await admin.send(
                "PUT", "/db/page/x.html?rev=\(rev)", body: Data("<script>alert(document.cookie)</script>".utf8),
                contentType: "text/html; charset=utf-8")
            let second = try #require(html.json["rev"]?.stringValue)
            #expect(
                try await admin.send("PUT", "/db/page/notes.bin?rev=\(second)", body: Data("hello".utf8), contentType: "application/octet-stream")
                    .status == 201)
            for request in [("GET", "/db/page/x.html"), ("HEAD", "/db/page/x.html")] {
                let answer = try await admin.send(request.0, request.1)
                #expect(answer.status == 200)
                #expect(answer.header("Content-Security-Policy") == "sandbox", "\(request)")
                #expect(answer.header("X-Content-Type-Options") == "nosniff")
                #expect(answer.header("Content-Disposition")?.hasPrefix("attachment; filename=\"x.html\"") == true)
            }
            // Stored as sent (not a compressible type), so served in ranges.
            let ranged = try await admin.get("/db/page/notes.bin", headers: ["Range": "bytes=0-1"])
            #expect(ranged.status == 206 && ranged.header("Content-Security-Policy") == "sandbox")
            let plain = try await admin.get("/db/page/notes.bin")
            #expect(plain.header("Content-Security-Policy") == "sandbox" && plain.header("Content-Disposition") == nil)
            let svg = try await admin.send("PUT", "/db/pic", json: ["_attachments": ["a.svg": ["content_type": "image/svg+xml", "data": "PHN2Zy8+"]]])
            #expect(svg.status == 201)
            #expect(try await admin.get("/db/pic/a.svg").header("Content-Disposition")?.hasPrefix("attachment") == true)
        }
    }

    @Test func loginFormsPostedFromAnotherSiteAreRefused() async throws {
        try await withLiveServer { server in
            let form = Data("name=admin&password=s3cret".utf8)
            let type = "application/x-www-form-urlencoded"
            let anonymous = server.anonymous
            let crossOrigin = try await anonymous.send(
                "POST", "/_session", body: form, contentType: type, headers: ["Origin": "https://evil.example"])
            #expect(crossOrigin.status == 403 && crossOrigin.header("Set-Cookie") == nil)
            let crossSite = try await anonymous.send(
                "POST", "/_session", body: form, contentType: type, headers: ["Sec-Fetch-Site": "cross-site"])
            #expect(crossSite.status == 403)
            let dashboard = try await anonymous.send(
                "POST", "/_utils/login", body: form, contentType: type, headers: ["Origin": "https://evil.example"])
            #expect(dashboard.status == 403 && dashboard.header("Set-Cookie") == nil)
            // The same forms from the server's own pages, and JSON logins, go through.
            let sameOrigin = try await anonymous.send(
                "POST", "/_session", body: form, contentType: type, headers: ["Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin"])
            #expect(sameOrigin.status == 200)
            let json = try await anonymous.send(
                "POST", "/_session", body: Data(#"{"name":"admin","password":"s3cret"}"#.utf8), contentType: "application/json",
                headers: ["Origin": "https://evil.example"])
            #expect(json.status == 200)
        }
    }

    @Test func requestsRefusedBeforeLoginAreRecordedAsSuchWithoutNamingAUser() async throws {
        try await withLiveServer({ $0.audit = AuditSettings() }) { server in
            #expect(try await server.admin.send("PUT", "/db").status == 201)
            let wrong = try await server.client("alice", "nope").put("/db/x", ["v": 1])
            #expect(wrong.status == 401)
            let tooLarge = try await server.client("alice", "nope").send(
                "PUT", "/db/y", body: Data(repeating: UInt8(ascii: "a"), count: 100_000), contentType: "application/json")
            #expect(tooLarge.status == 401)
            #expect(try await server.client("alice", "nope").put("/db/a%FFx", ["v": 1]).status == 400)
            let login = try await server.anonymous.send(
                "POST", "/_session", body: Data(#"{"name":"alice","password":"nope"}"#.utf8), contentType: "application/json")
            #expect(login.status == 401)
            #expect(try await server.admin.get("/db").status == 200)
            await server.server.endpoint.auditTrail?.flush()
            let folder = URL(fileURLWithPath: server.folder).appendingPathComponent("_audit").path
            let keys = try AuditKeys.ofServer(dataFolder: server.folder)
            let entries = try AuditTrail.entries(in: folder, keys: keys)
            let aliceTried = entries.filter { $0.triedUser == "alice" }
            #expect(aliceTried.count == 3, "\(entries.map(\.json))")
            #expect(aliceTried.allSatisfy { $0.user == nil && $0.authentication == "failed" })
            #expect(entries.contains { $0.status == 400 && $0.authentication == "not_reached" && $0.user == nil })
            #expect(entries.contains { $0.user == "admin" && $0.authentication == "authenticated" && $0.path == "/db" })
            #expect(!entries.contains { $0.user == "alice" })
            #expect(try AuditTrail.verify(folder: folder, keys: keys).isIntact)
        }
    }
}
