import Foundation
import Testing

@Suite("cloudant replicate")
struct ReplicateCommandTests {
    @Test func replicatesBetweenLocalStoresAndResumesFromTheCheckpoint() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try CLIRunner.jsonLines(
            (0..<40).map { #"{"_id":"d\#($0)","kind":"\#($0 % 2 == 0 ? "even" : "odd")"}"# }, in: folder)
        #expect(try await CLIRunner.run(["bulk", "--db", "phone", file.path], in: folder).status == 0)

        let first = try await CLIRunner.run(["replicate", "phone", "backup"], in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try jsonObject(first.stdout)["docs_written"] as? Int == 40)
        #expect(try await CLIRunner.run(["put", "--db", "phone", #"{"_id":"late"}"#], in: folder).status == 0)
        let second = try jsonObject(try await CLIRunner.run(["replicate", "phone", "backup"], in: folder).stdout)
        #expect(second["docs_written"] as? Int == 1 && second["missing_checked"] as? Int == 1)

        let filtered = try await CLIRunner.run(["replicate", "phone", "evens", "--selector", #"{"kind":"even"}"#], in: folder)
        #expect(try jsonObject(filtered.stdout)["docs_written"] as? Int == 20)
        let picked = try await CLIRunner.run(["replicate", "phone", "two", "--doc-ids", "d1,d2"], in: folder)
        #expect(try jsonObject(picked.stdout)["docs_written"] as? Int == 2)
    }

    @Test func aDesignDocumentsFilterChoosesWhatIsReplicatedWithItsQueryParameters() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try CLIRunner.jsonLines(
            (0..<30).map { #"{"_id":"d\#($0)","kind":"\#($0 % 3 == 0 ? "fizz" : "plain")"}"# }, in: folder)
        #expect(try await CLIRunner.run(["bulk", "--db", "phone", file.path], in: folder).status == 0)
        let design = #"{"_id":"_design/app","filters":{"by_kind":"function (doc, req) { return doc.kind === req.query.kind; }"}}"#
        #expect(try await CLIRunner.run(["put", "--db", "phone", design], in: folder).status == 0)

        // The filter runs where the documents are (here the local store) and sees --query-param as req.query;
        // the design document itself is a document the filter is asked about (and refuses).
        let local = try await CLIRunner.run(["replicate", "phone", "fizzes", "--filter", "app/by_kind", "--query-param", "kind=fizz"], in: folder)
        #expect(local.status == 0, "\(local.stderr)")
        #expect(try jsonObject(local.stdout)["docs_written"] as? Int == 10)
        let copied = try await CLIRunner.run(["changes", "--db", "fizzes"], in: folder)
        #expect(copied.stdout.contains(#""d3""#) && !copied.stdout.contains(#""d1""#) && !copied.stdout.contains("_design/app"))

        // From a server, the server runs it (GET _changes?filter=app/by_kind&kind=plain).
        let server = try await ServeProcess.start(["--data", folder.appendingPathComponent("server").path, "serve", "--port", "0", "--admin", "admin:s3cret"], in: folder)
        defer { server.kill() }
        try #require(server.port > 0)
        let remote = server.url.replacingOccurrences(of: "http://", with: "http://admin:s3cret@") + "/cloud"
        #expect(try await CLIRunner.run(["replicate", "phone", remote, "--create-target"], in: folder).status == 0)
        let pulled = try await CLIRunner.run(["replicate", remote, "plains", "--filter", "app/by_kind", "--query-param", "kind=plain"], in: folder)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try jsonObject(pulled.stdout)["docs_written"] as? Int == 20)

        // A filter the source does not have is an error naming it, and nothing is written.
        let missing = try await CLIRunner.run(["replicate", "phone", "none", "--filter", "app/nope"], in: folder)
        #expect(missing.status != 0)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "not_found", "\(missing.stderr)")
    }

    @Test func aMissingSourceAndExclusiveFiltersAreCouchDBShapedErrors() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try await CLIRunner.run(["replicate", "nope", "backup"], in: folder)
        #expect(missing.status != 0)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "not_found")
        #expect(try await CLIRunner.run(["put", "--db", "a", #"{"_id":"x"}"#], in: folder).status == 0)
        let both = try await CLIRunner.run(["replicate", "a", "b", "--selector", "{}", "--doc-ids", "x"], in: folder)
        #expect(both.status != 0)
        #expect(try jsonObject(both.stderr)["error"] as? String == "bad_request")
    }

    @Test(arguments: ["nio", "urlsession"])
    func replicatesToAndFromAServerOverEitherHTTPClient(client: String) async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(["--data", folder.appendingPathComponent("server").path, "serve", "--port", "0", "--admin", "admin:s3cret"], in: folder)
        defer { server.kill() }
        try #require(server.port > 0)
        let remote = server.url.replacingOccurrences(of: "http://", with: "http://admin:s3cret@") + "/cloud"
        let file = try CLIRunner.jsonLines((0..<25).map { #"{"_id":"v\#($0)","pulse":\#(60 + $0)}"# }, in: folder)
        #expect(try await CLIRunner.run(["bulk", "--db", "phone", file.path], in: folder).status == 0)

        let push = try await CLIRunner.run(["replicate", "phone", remote, "--create-target", "--http-client", client], in: folder)
        #expect(push.status == 0, "\(push.stderr)")
        #expect(try jsonObject(push.stdout)["docs_written"] as? Int == 25)
        let pull = try await CLIRunner.run(["replicate", remote, "tablet", "--http-client", client], in: folder)
        #expect(pull.status == 0, "\(pull.stderr)")
        #expect(try jsonObject(pull.stdout)["docs_written"] as? Int == 25)

        // Without credentials the server asks for them (401 with WWW-Authenticate): an error at once, not a hang.
        let anonymous = try await CLIRunner.run(["replicate", server.url + "/cloud", "other", "--http-client", client], in: folder)
        #expect(anonymous.status != 0)
        #expect(try jsonObject(anonymous.stderr)["error"] as? String == "unauthorized")
    }

    @Test func anUnknownHTTPClientIsAUsageError() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CLIRunner.run(["replicate", "a", "http://127.0.0.1:1/b", "--http-client", "curl"], in: folder)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("nio") && result.stderr.contains("urlsession"))
    }
}
