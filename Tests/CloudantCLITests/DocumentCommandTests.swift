import Foundation
import Testing

/// Parses one line of CLI output as a JSON object.
func jsonObject(_ text: String) throws -> [String: Any] {
    let object = try JSONSerialization.jsonObject(with: Data(text.utf8))
    return try #require(object as? [String: Any])
}

@Suite("cloudant document commands")
struct DocumentCommandTests {
    @Test func putGetDeleteRoundTripPrintsCouchDBShapedJSON() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let put = try await CLIRunner.run(["put", "--db", "demo", #"{"_id":"hello","text":"world"}"#], in: folder)
        #expect(put.status == 0, "\(put.stderr)")
        let written = try jsonObject(put.stdout)
        #expect(written["ok"] as? Bool == true)
        #expect(written["id"] as? String == "hello")
        let rev = try #require(written["rev"] as? String)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("cloudant-data/demo.sqlite").path))

        let get = try await CLIRunner.run(["get", "--db", "demo", "hello"], in: folder)
        #expect(try jsonObject(get.stdout)["text"] as? String == "world")

        let update = try await CLIRunner.run(["put", "--db", "demo", "--rev", rev, "-"], stdin: #"{"_id":"hello","text":"again"}"#, in: folder)
        let rev2 = try #require(try jsonObject(update.stdout)["rev"] as? String)
        #expect(rev2.hasPrefix("2-"))

        let conflict = try await CLIRunner.run(["put", "--db", "demo", "--rev", rev, #"{"_id":"hello"}"#], in: folder)
        #expect(conflict.status != 0)
        #expect(conflict.stdout.isEmpty)
        #expect(try jsonObject(conflict.stderr)["error"] as? String == "conflict")

        let withRevs = try await CLIRunner.run(["get", "--db", "demo", "--revs", "--conflicts", "hello"], in: folder)
        let revisions = try #require(try jsonObject(withRevs.stdout)["_revisions"] as? [String: Any])
        #expect(revisions["start"] as? Int == 2)

        let delete = try await CLIRunner.run(["delete", "--db", "demo", "--rev", rev2, "hello"], in: folder)
        #expect(try jsonObject(delete.stdout)["ok"] as? Bool == true)
        let gone = try await CLIRunner.run(["get", "--db", "demo", "hello"], in: folder)
        #expect(gone.status != 0)
        #expect(try jsonObject(gone.stderr)["reason"] as? String == "deleted")
    }

    @Test func theGlobalDataOptionChoosesTheFolder() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("elsewhere").path
        let put = try await CLIRunner.run(["put", "--data", data, "--db", "demo", #"{"_id":"a"}"#], in: folder)
        #expect(put.status == 0, "\(put.stderr)")
        #expect(FileManager.default.fileExists(atPath: data + "/demo.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("cloudant-data").path))
    }

    @Test func dbCommandsCreateListInspectAndDeleteStores() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["db", "create", "alpha"], in: folder).stdout.contains(#""ok":true"#))
        let again = try await CLIRunner.run(["db", "create", "alpha"], in: folder)
        #expect(again.status != 0)
        _ = try await CLIRunner.run(["db", "create", "beta"], in: folder)
        let list = try await CLIRunner.run(["db", "list"], in: folder)
        #expect(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String] == ["alpha", "beta"])
        _ = try await CLIRunner.run(["put", "--db", "alpha", #"{"_id":"x"}"#], in: folder)
        let info = try jsonObject(try await CLIRunner.run(["db", "info", "alpha"], in: folder).stdout)
        #expect(info["doc_count"] as? Int == 1)
        #expect((info["update_seq"] as? String)?.hasPrefix("1-") == true)
        #expect(info["db_name"] as? String == "alpha")
        #expect(try await CLIRunner.run(["db", "delete", "alpha"], in: folder).status == 0)
        let missing = try await CLIRunner.run(["db", "info", "alpha"], in: folder)
        #expect(missing.status != 0)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "not_found")
        let bad = try await CLIRunner.run(["db", "create", "Bad Name"], in: folder)
        #expect(try jsonObject(bad.stderr)["error"] as? String == "bad_request")
    }

    @Test func bulkWritesBatchesAndPrintsOneResultLinePerBatch() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = (0..<25).map { #"{"_id":"d\#($0)","n":\#($0)}"# } + [#"{"_id":"d0"}"#]
        let file = try CLIRunner.jsonLines(lines, in: folder)
        let bulk = try await CLIRunner.run(["bulk", "--db", "demo", "--batch-size", "10", file.path], in: folder)
        // The repeated d0 conflicts: everything else is written, and the exit status (4, conflict) says not
        // everything was.
        #expect(bulk.status == 4, "\(bulk.stderr)")
        let batches = bulk.stdout.split(separator: "\n")
        #expect(batches.count == 3)
        let last = try #require(try JSONSerialization.jsonObject(with: Data(batches[2].utf8)) as? [[String: Any]])
        #expect(last.count == 6)
        #expect(last.last?["error"] as? String == "conflict")

        let changes = try jsonObject(try await CLIRunner.run(["changes", "--db", "demo", "--since", "20", "--limit", "3"], in: folder).stdout)
        #expect((changes["results"] as? [[String: Any]])?.count == 3)
        #expect((changes["last_seq"] as? String)?.hasPrefix("23-") == true)
        #expect(changes["pending"] as? Int == 2)
    }

    @Test func malformedJSONIsAnErrorWithItsPositionAndWritesNothing() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let put = try await CLIRunner.run(["put", "--db", "demo", #"{"_id": "a", }"#], in: folder)
        #expect(put.status != 0)
        let error = try jsonObject(put.stderr)
        #expect(error["error"] as? String == "bad_request")
        #expect(error["position"] as? Int != nil)
        let array = try await CLIRunner.run(["put", "--db", "demo", "[1,2]"], in: folder)
        #expect(array.status != 0)
    }

    @Test func compactReportsTheRevisionsItDropped() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try jsonObject(try await CLIRunner.run(["put", "--db", "demo", #"{"_id":"a"}"#], in: folder).stdout)
        _ = try await CLIRunner.run(["put", "--db", "demo", "--rev", try #require(first["rev"] as? String), #"{"_id":"a","v":2}"#], in: folder)
        let compact = try jsonObject(try await CLIRunner.run(["compact", "--db", "demo"], in: folder).stdout)
        #expect(compact["revisions_compacted"] as? Int == 1)
    }
}

@Suite("cloudant bulk validation")
struct BulkValidationTests {
    @Test func aMalformedDocumentFailsItsBatchAndEarlierBatchesStayCommitted() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = (0..<10).map { #"{"_id":"d\#($0)"}"# } + [#"{"_id":"_bad"}"#]
        let file = try CLIRunner.jsonLines(lines, in: folder)
        let bulk = try await CLIRunner.run(["bulk", "--db", "demo", "--batch-size", "5", file.path], in: folder)
        #expect(bulk.status != 0)
        #expect(bulk.stdout.split(separator: "\n").count == 2)
        #expect(try jsonObject(bulk.stderr)["error"] as? String == "illegal_docid")
        let info = try jsonObject(try await CLIRunner.run(["db", "info", "demo"], in: folder).stdout)
        #expect(info["doc_count"] as? Int == 10)
    }
}
