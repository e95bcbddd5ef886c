import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

@Suite("Request limits and robustness")
struct LimitsTests {
    @Test func anOversizedBodyIsTooLarge() async throws {
        try await withLiveServer({ $0.maxRequestBodySize = 16 * 1024 }) { server in
            _ = try await server.admin.send("PUT", "/db")
            let big = JSONValue.object(["_id": "big", "blob": .string(String(repeating: "x", count: 64 * 1024))])
            let answer = try await server.admin.post("/db", big)
            #expect(answer.status == 413)
            #expect(answer.json["error"] == "too_large")
            #expect(try await server.admin.get("/db").status == 200)
        }
    }

    @Test func malformedJSONIsABadRequest() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let answer = try await server.admin.send("PUT", "/db/doc", body: Data("{\"a\":".utf8), contentType: "application/json")
            answer.expectCouchError(400, "bad_request", "invalid UTF-8 JSON")
        }
    }

    @Test func aJSONEndpointRefusesOtherContentTypes() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let answer = try await server.admin.send(
                "POST", "/db/_bulk_docs", body: Data("{\"docs\":[]}".utf8), contentType: "text/plain")
            #expect(answer.status == 415)
            #expect(answer.json["error"] == "bad_content_type")
        }
    }

    @Test func aClientHangingUpMidRequestLeavesTheServerServing() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            for _ in 0..<5 {
                let connection = try RawConnection(port: server.port)
                connection.send(
                    "PUT /db/half HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                        + "Authorization: Basic YWRtaW46czNjcmV0\r\nContent-Length: 1000\r\n\r\n{\"a\":")
                connection.close()
            }
            let connection = try RawConnection(port: server.port)
            connection.send("GET /db/_changes?feed=continuous&heartbeat=50 HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWRtaW46czNjcmV0\r\n\r\n")
            try await server.waitForOpenFeeds()  // hung up while its feed streams
            connection.close()
            let answer = try await server.admin.put("/db/after", ["ok": true])
            #expect(answer.status == 201)
            #expect(try await server.admin.get("/db/half").status == 404)
        }
    }
}
