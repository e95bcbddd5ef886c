import Foundation
import Testing

@Suite("cloudant index")
struct IndexCommandTests {
    @Test func createListUseAndDeleteAnIndexFromTheCommandLine() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try CLIRunner.jsonLines(
            (0..<30).map { #"{"_id":"p\#($0)","age":\#($0 % 10),"bio":"likes \#($0 % 2 == 0 ? "running" : "reading")"}"# }, in: folder)
        #expect(try await CLIRunner.run(["bulk", "--db", "demo", file.path], in: folder).status == 0)

        let created = try await CLIRunner.run(["index", "create", "--db", "demo", "age", "--name", "by-age", "--ddoc", "people"], in: folder)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try jsonObject(created.stdout)["result"] as? String == "created")
        #expect(try jsonObject(created.stdout)["id"] as? String == "_design/people")
        let again = try await CLIRunner.run(["index", "create", "--db", "demo", #"{"index":{"fields":["age"]},"name":"by-age","ddoc":"_design/people"}"#], in: folder)
        #expect(try jsonObject(again.stdout)["result"] as? String == "exists")
        let text = try await CLIRunner.run(["index", "create", "--db", "demo", "--type", "text", "--analyzer", "porter", "bio"], in: folder)
        #expect(text.status == 0, "\(text.stderr)")

        let listed = try jsonObject(try await CLIRunner.run(["index", "list", "--db", "demo"], in: folder).stdout)
        #expect(listed["total_rows"] as? Int == 3)

        let explained = try jsonObject(try await CLIRunner.run(["explain", "--db", "demo", #"{"age":{"$gt":7}}"#], in: folder).stdout)
        #expect((explained["index"] as? [String: Any])?["name"] as? String == "by-age")
        let found = try await CLIRunner.run(
            ["find", "--db", "demo", #"{"age":{"$gt":7}}"#, "--use-index", "people/by-age", "--fields", "_id", "--execution-stats"], in: folder)
        let result = try jsonObject(found.stdout)
        #expect((result["docs"] as? [[String: String]])?.count == 6)
        // The index covers `_id` and `age`: documents are made from its entries, none is read (CouchDB's
        // covering index), and the range starts at age 7 inclusive, as CouchDB's view keys do.
        #expect((result["execution_stats"] as? [String: Any])?["total_docs_examined"] as? Int == 0)
        #expect((result["execution_stats"] as? [String: Any])?["total_keys_examined"] as? Int == 9)
        let searched = try jsonObject(try await CLIRunner.run(["find", "--db", "demo", #"{"$text":"run"}"#, "--limit", "100"], in: folder).stdout)
        #expect((searched["docs"] as? [Any])?.count == 15)

        #expect(try await CLIRunner.run(["index", "delete", "--db", "demo", "_design/people", "by-age"], in: folder).status == 0)
        let missing = try await CLIRunner.run(["index", "delete", "--db", "demo", "people", "by-age"], in: folder)
        #expect(missing.status != 0)
        #expect(try jsonObject(missing.stderr)["error"] as? String == "index_not_found")
    }
}
