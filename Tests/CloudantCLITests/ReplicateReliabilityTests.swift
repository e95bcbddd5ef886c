import CloudantTestSupport
import Foundation
import Testing

/// `cloudant replicate` never skips a revision silently: documents CouchDB's own replicator copies are
/// copied, a revision that cannot be written is named with a distinct exit status, and running again tries it.
@Suite("cloudant replicate: every revision, or a named failure")
struct ReplicateReliabilityTests {
    static func curl(_ arguments: [String]) async throws -> String {
        String(decoding: try await ChildProcess.run("/usr/bin/curl", ["-s", "-S"] + arguments).stdout, as: UTF8.self)
    }

    /// A `cloudant serve` with an admin, and the admin's URL of `db`.
    static func server(in folder: URL) async throws -> ServeProcess {
        let server = try await ServeProcess.start(
            ["--data", folder.appendingPathComponent("server").path, "serve", "--port", "0", "--admin", "admin:s3cret"], in: folder)
        try #require(server.port > 0)
        return server
    }

    static func adminURL(_ server: ServeProcess, _ db: String) -> String {
        server.url.replacingOccurrences(of: "http://", with: "http://admin:s3cret@") + "/" + db
    }

    @Test(arguments: ["nio", "urlsession"])
    func aRestoredDocumentWithARevposZeroAttachmentIsPulled(client: String) async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await Self.server(in: folder)
        defer { server.kill() }
        _ = try await Self.curl(["-u", "admin:s3cret", "-X", "PUT", server.url + "/db"])
        // The issue's repro, as CouchDB stores it: inline data, `new_edits=false`, a revpos of 0.
        let restore = #"""
            {"new_edits":false,"docs":[{"_id":"a","_rev":"1-0123456789abcdef0123456789abcdef",
            "_attachments":{"x.bin":{"content_type":"application/octet-stream","data":"aGVsbG8=","revpos":0}}}]}
            """#
        _ = try await Self.curl(["-u", "admin:s3cret", "-H", "Content-Type: application/json", "-d", restore, server.url + "/db/_bulk_docs"])
        let pulled = try await CLIRunner.run(
            ["--data", folder.appendingPathComponent("local").path, "replicate", Self.adminURL(server, "db"), "db", "--http-client", client],
            in: folder)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        let stats = try jsonObject(pulled.stdout)
        #expect(stats["docs_written"] as? Int == 1 && stats["doc_write_failures"] as? Int == 0)
        #expect((stats["failures"] as? [Any])?.isEmpty == true)
        let attachment = try await CLIRunner.run(
            ["--data", folder.appendingPathComponent("local").path, "attachment", "get", "--db", "db", "--id", "a", "--name", "x.bin"], in: folder)
        #expect(attachment.status == 0 && attachment.stdout == "hello", "\(attachment.stderr)")
    }

    @Test func aRevisionTheTargetRefusesIsNamedWithExitStatus7AndTriedAgainNextRun() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await Self.server(in: folder)
        defer { server.kill() }
        // Per-document access: bob may not write over a document only alice may see (403 for that document).
        _ = try await Self.curl(["-u", "admin:s3cret", "-X", "PUT", server.url + "/cloud"])
        for name in ["alice", "bob"] {
            let user = #"{"name":"\#(name)","password":"pw","roles":["staff"],"type":"user"}"#
            _ = try await Self.curl([
                "-u", "admin:s3cret", "-X", "PUT", "-H", "Content-Type: application/json", "-d", user,
                server.url + "/_users/org.couchdb.user:\(name)",
            ])
        }
        _ = try await Self.curl([
            "-u", "admin:s3cret", "-X", "PUT", "-H", "Content-Type: application/json", "-d",
            #"{"members":{"roles":["staff"]},"document_access":true}"#, server.url + "/cloud/_security",
        ])
        _ = try await Self.curl([
            "-u", "alice:pw", "-X", "PUT", "-H", "Content-Type: application/json", "-d", #"{"secret":"alice"}"#, server.url + "/cloud/d3",
        ])
        let local = folder.appendingPathComponent("local").path
        let file = try CLIRunner.jsonLines((0..<6).map { #"{"_id":"d\#($0)","access":{"names":["bob"]}}"# }, in: folder)
        #expect(try await CLIRunner.run(["--data", local, "bulk", "--db", "phone", file.path], in: folder).status == 0)
        let taken = try jsonObject(try await CLIRunner.run(["--data", local, "get", "--db", "phone", "d3"], in: folder).stdout)
        let bob = server.url.replacingOccurrences(of: "http://", with: "http://bob:pw@") + "/cloud"

        let first = try await CLIRunner.run(["--data", local, "replicate", "phone", bob], in: folder)
        #expect(first.status == 7, "\(first.stderr)")
        let stats = try jsonObject(first.stdout)
        #expect(stats["ok"] as? Bool == false && stats["docs_written"] as? Int == 5 && stats["doc_write_failures"] as? Int == 1)
        let failures = try #require(stats["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        #expect(failures.first?["id"] as? String == "d3" && failures.first?["rev"] as? String == taken["_rev"] as? String)
        #expect(failures.first?["error"] as? String == "forbidden")
        #expect((failures.first?["reason"] as? String)?.isEmpty == false)
        // A log line names it on standard error.
        #expect(first.stderr.contains("could not write document \"d3\" revision \(taken["_rev"] as? String ?? "?")"), "\(first.stderr)")
        // The checkpoint stayed before it: the next run reads it again, and names it again.
        let second = try await CLIRunner.run(["--data", local, "replicate", "phone", bob], in: folder)
        #expect(second.status == 7)
        let again = try jsonObject(second.stdout)
        #expect(again["missing_checked"] as? Int ?? 0 >= 1 && again["docs_written"] as? Int == 0)
        #expect((again["failures"] as? [[String: Any]])?.first?["id"] as? String == "d3")
        // An admin may write it: that run resolves it and is clean.
        let admin = try await CLIRunner.run(["--data", local, "replicate", "phone", Self.adminURL(server, "cloud")], in: folder)
        #expect(admin.status == 0, "\(admin.stderr)")
        #expect(try jsonObject(admin.stdout)["docs_written"] as? Int == 1)
    }
}
