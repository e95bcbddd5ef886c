import CloudantCore
import CloudantServer
import CloudantTestSupport
import Foundation
import Testing

/// A server with `audit` set records who read, wrote, deleted, replicated or was refused what.
@Suite("Audit trail of a live server")
struct AuditedServerTests {
    @Test func everyKindOfRequestIsRecordedWithItsUserDocumentAndStatusAndTheChainVerifies() async throws {
        let auditFolder = NSTemporaryDirectory() + "cloudant-audit-server-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: auditFolder) }
        let audited: (inout ServerConfiguration) -> Void = { $0.audit = AuditSettings(folder: auditFolder) }
        let server = try await LiveServer.start(audited)
        let admin = server.admin
        #expect(try await admin.send("PUT", "/ward").status == 201)
        let user: JSONValue = ["name": "nina", "password": "pw", "roles": [], "type": "user"]
        #expect(try await admin.put("/_users/org.couchdb.user:nina", user).status == 201)
        let written = try await admin.put("/ward/obs-1", ["bpm": 70])
        #expect(try await admin.get("/ward/obs-1").status == 200)
        #expect(try await server.client("nina", "pw").get("/ward/obs-1").status == 403)
        #expect(try await server.client("nina", "wrong").get("/ward/obs-1").status == 401)
        #expect(try await admin.post("/ward/_bulk_docs", ["new_edits": false, "docs": [["_id": "r1", "_rev": "1-aaaa", "v": 1]]]).status == 201)
        #expect(try await admin.send("DELETE", "/ward/obs-1?rev=\(written.json["rev"]?.stringValue ?? "")").status == 200)
        #expect(try await server.anonymous.post("/_session", ["name": "nina", "password": "pw"]).status == 200)
        await server.stop()

        let entries = try AuditTrail.entries(in: auditFolder)
        func find(_ action: String, _ user: String?, _ status: Int) -> AuditEntry? {
            entries.first { $0.action == action && $0.user == user && $0.status == status }
        }
        #expect(entries.contains { $0.action == "write" && $0.database == "ward" && $0.documentID == nil && $0.method == "PUT" })
        #expect(entries.contains { $0.action == "write" && $0.database == "ward" && $0.documentID == "obs-1" && $0.status == 201 })
        #expect(entries.contains { $0.action == "write" && $0.database == "_users" && $0.documentID == "org.couchdb.user:nina" })
        let read = try #require(find("read", "admin", 200))
        #expect(read.database == "ward" && read.documentID == "obs-1" && read.rev == written.json["rev"]?.stringValue)
        #expect(read.address == "127.0.0.1" && read.method == "GET" && read.path == "/ward/obs-1")
        #expect(find("refused", "nina", 403)?.documentID == "obs-1")
        // Refused credentials never name a user: the name they gave is only the one tried.
        let wrongPassword = try #require(find("refused", nil, 401))
        #expect(wrongPassword.triedUser == "nina" && wrongPassword.authentication == "failed")
        #expect(find("replicate", "admin", 201)?.documentIDs == ["r1"])
        #expect(find("delete", "admin", 200)?.documentID == "obs-1")
        #expect(find("login", "nina", 200)?.path == "/_session")
        #expect(try AuditTrail.verify(folder: auditFolder).isIntact)
    }
}
