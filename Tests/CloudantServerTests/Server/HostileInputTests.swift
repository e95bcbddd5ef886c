import CloudantCore
@testable import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// Input meant to crash, hang or corrupt, through the HTTP endpoint: huge generations, catastrophic `$regex`,
/// NUL in ids, malformed HTTP, gzip bombs; each is answered with CouchDB's error and the server goes on.
@Suite("Hostile input over HTTP")
struct HostileInputTests {
    static let catastrophic = String(repeating: "a", count: 40) + "!"

    @Test func aRevisionGenerationBeyondTheBoundIsRefusedBeforeAnythingIsWritten() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let huge: JSONValue = ["_id": "poison", "_revisions": ["start": .number(JSONNumber(Int64.max)), "ids": ["abc"]]]
            let refused = try await server.admin.put("/db/poison?new_edits=false", huge)
            #expect(refused.status == 400)
            #expect(refused.json["error"] == "bad_request")
            #expect(try await server.admin.get("/db/poison").status == 404)

            // A document exactly at the bound is stored, and editing it is refused instead of aborting.
            let top: JSONValue = [
                "_id": "top", "_revisions": ["start": .number(JSONNumber(Int64(RevisionID.maximumGeneration))), "ids": ["abc"]],
            ]
            #expect(try await server.admin.put("/db/top?new_edits=false", top).status == 201)
            let rev = "\(RevisionID.maximumGeneration)-abc"
            let edit = try await server.admin.put("/db/top", ["_rev": .string(rev), "v": 2])
            #expect(edit.status == 400)
            #expect(edit.json["reason"]?.stringValue?.contains("largest") == true)
            #expect(try await server.admin.get("/db/top").json["_rev"] == .string(rev))
            #expect(try await server.admin.put("/db/after", ["ok": true]).status == 201)
        }
    }

    @Test func aDocumentIDWithNULIsRefusedAndLeavesTheDocumentBeforeTheNULAlone() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let created = try await server.admin.put("/db/a", ["v": 1])
            #expect(created.status == 201)
            for path in ["/db/a%00x", "/db/%00x"] {
                let answer = try await server.admin.put(path, ["v": 2])
                #expect(answer.status == 400)
                #expect(answer.json["error"] == "illegal_docid")
            }
            #expect(try await server.admin.get("/db/a%00x").status == 400)
            #expect(try await server.admin.post("/db", ["_id": "a\u{0}x", "v": 3]).json["error"] == "illegal_docid")
            let a = try await server.admin.get("/db/a")
            #expect(a.json["_rev"] == created.json["rev"])
            #expect(a.json["v"] == 1)
            #expect(try await server.admin.get("/db/_all_docs").json["total_rows"] == 1)
        }
    }

    @Test func anIDThatIsNotUTF8IsRefusedNotRepaired() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let answer = try await server.admin.put("/db/a%FFx", ["v": 1])
            #expect(answer.status == 400)
            #expect(answer.json["error"] == "illegal_docid")
            #expect(answer.json["reason"]?.stringValue?.hasPrefix("Document id must be valid UTF-8") == true)
            #expect(try await server.admin.get("/db/a%FFx").status == 404)
            #expect(try await server.admin.get("/db/_all_docs").json["total_rows"] == 0)
        }
    }

    @Test func aCatastrophicRegexAnswersABadArgWithinItsStepLimit() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            _ = try await server.admin.put("/db/x", ["name": .string(Self.catastrophic)])
            let answer = try await server.admin.post("/db/_find", ["selector": ["name": ["$regex": "(a+)+$"]]])
            #expect(answer.status == 400)
            #expect(answer.json["error"] == "bad_arg")
            #expect(answer.json["reason"]?.stringValue?.contains("regex step limit") == true)
            // The database still answers.
            #expect(try await server.admin.post("/db/_find", ["selector": ["name": ["$regex": "^a"]]]).json["docs"]?.arrayValue?.count == 1)
        }
    }

    @Test func aFindIsCancelledWhenItsClientGoesAway() async throws {
        // Only the client's going away can end this query in reasonable time: 10,000 documents, each taking
        // `^(a+)+$` some four million steps (within the step limit) to reject.
        try await withLiveServer({ $0.regexStepLimit = MatchLimits.maximumRegexStepLimit }) { server in
            _ = try await server.admin.send("PUT", "/db")
            let value = JSONValue.string(String(repeating: "a", count: 21) + "!")
            let documents = (0..<10_000).map { JSONValue.object(["_id": .string("d\($0)"), "name": value]) }
            #expect(try await server.admin.post("/db/_bulk_docs", ["docs": .array(documents)]).status == 201)
            let body = #"{"selector":{"name":{"$regex":"^(a+)+$"}}}"#
            let connection = try RawConnection(port: server.port)
            connection.send(
                "POST /db/_find HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWRtaW46czNjcmV0\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
            try await waitUntil("the query running") { server.requestsInProgress == 1 }
            connection.close()
            try await waitUntil("the query ending after its client left") { server.requestsInProgress == 0 }
            #expect(try await server.admin.get("/db").status == 200)
        }
    }

    @Test func malformedHTTPIsAnsweredWithCouchDBsJSONErrorBody() async throws {
        try await withLiveServer { server in
            for garbage in ["GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", "GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"] {
                let connection = try RawConnection(port: server.port)
                connection.send(garbage)
                let answer = try TestClient.parse(try await connection.readToEndOffPool(), isHead: false)
                connection.close()
                #expect(answer.status == 400)
                #expect(answer.json["error"] == "bad_request")
                #expect(answer.header("Content-Type") == "application/json")
            }
            #expect(try await server.admin.get("/").status == 200)
        }
    }

    /// A client that reuses a connection it asked to close must not get an answer meant for nobody: its next
    /// request is dropped and the connection ends, so the client sends it again on a new one.
    @Test func aRequestSentAfterConnectionCloseEndsTheConnectionUnanswered() async throws {
        try await withLiveServer { server in
            let connection = try RawConnection(port: server.port)
            let request = "GET /_up HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            connection.send(request + "GET /_up HTTP/1.1\r\nHost: x\r\n\r\n")
            let bytes = try await connection.readToEndOffPool()
            connection.close()
            let answer = try TestClient.parse(bytes, isHead: false)
            #expect(answer.status == 200)
            #expect(answer.header("Connection") == "close")
            #expect(String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 ").count == 2)
            // The option is found in a list, in any case; a connection kept alive is answered without it.
            #expect(try await server.admin.get("/_up", headers: ["Connection": "Keep-Alive, CLOSE"]).header("Connection") == "close")
            let kept = try RawConnection(port: server.port)
            kept.send("GET /_up HTTP/1.1\r\nHost: x\r\n\r\n")
            let head = try await kept.readUntil("\r\n\r\n")
            kept.close()
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(!head.lowercased().contains("connection:"))
        }
    }

    @Test func aGzipRequestBodyIsInflated() async throws {
        try await withLiveServer { server in
            _ = try await server.admin.send("PUT", "/db")
            let gzipped = try await gzip(Array(#"{"a":1}"#.utf8))
            let answer = try await server.admin.send(
                "PUT", "/db/doc", body: Data(gzipped), contentType: "application/json", headers: ["Content-Encoding": "gzip"])
            #expect(answer.status == 201)
            #expect(try await server.admin.get("/db/doc").json["a"] == 1)

            let damaged = try await server.admin.send(
                "PUT", "/db/bad", body: Data("not gzip".utf8), contentType: "application/json", headers: ["Content-Encoding": "gzip"])
            #expect(damaged.status == 400)
            #expect(damaged.json["reason"] == "Request body is not properly gzipped.")
            let other = try await server.admin.send(
                "PUT", "/db/br", body: Data("{}".utf8), contentType: "application/json", headers: ["Content-Encoding": "br"])
            #expect(other.status == 415)
            #expect(other.json["error"] == "bad_content_type")
        }
    }

    @Test func aGzipBombMeetsTheBodySizeLimit() async throws {
        try await withLiveServer({ $0.maxRequestBodySize = 64 * 1024 }) { server in
            _ = try await server.admin.send("PUT", "/db")
            // 16 MB of spaces inside a JSON string compresses to about 16 KB: under the limit as sent.
            let json = Array(#"{"a":""#.utf8) + [UInt8](repeating: 32, count: 16 * 1024 * 1024) + Array(#""}"#.utf8)
            let bomb = try await gzip(json)
            #expect(bomb.count < 64 * 1024)
            let answer = try await server.admin.send(
                "PUT", "/db/bomb", body: Data(bomb), contentType: "application/json", headers: ["Content-Encoding": "gzip"])
            #expect(answer.status == 413)
            #expect(answer.json["error"] == "too_large")
            #expect(try await server.admin.get("/db/bomb").status == 404)
        }
    }
}

/// Gzips bytes with the system's gzip.
func gzip(_ bytes: [UInt8]) async throws -> [UInt8] {
    let output = try await ChildProcess.run("/bin/gzip", ["-c", "-n"], input: Data(bytes))
    return Array(output.stdout)
}
