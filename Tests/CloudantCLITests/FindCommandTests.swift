import Foundation
import Testing

@Suite("cloudant find")
struct FindCommandTests {
    @Test func findSortsProjectsAndReportsErrorsWithCouchDBNames() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = [#"{"_id":"a","age":30,"name":"A"}"#, #"{"_id":"b","age":20,"name":"B"}"#, #"{"_id":"c","name":"C"}"#]
        let file = try CLIRunner.jsonLines(lines, in: folder)
        #expect(try await CLIRunner.run(["bulk", "--db", "demo", file.path], in: folder).status == 0)

        let found = try await CLIRunner.run(
            ["find", "--db", "demo", #"{"age":{"$gte":0}}"#, "--sort", "age:desc", "--fields", "name"], in: folder)
        #expect(found.status == 0, "\(found.stderr)")
        let result = try jsonObject(found.stdout)
        #expect((result["docs"] as? [[String: String]]) == [["name": "A"], ["name": "B"]])
        #expect(result["bookmark"] is String)

        let changes = try await CLIRunner.run(["changes", "--db", "demo", "--selector", #"{"age":{"$lt":25}}"#], in: folder)
        let rows = try #require(try jsonObject(changes.stdout)["results"] as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == ["b"])

        let bad = try await CLIRunner.run(["find", "--db", "demo", #"{"age":{"$in":3}}"#], in: folder)
        #expect(bad.status != 0)
        #expect(try jsonObject(bad.stderr)["error"] as? String == "bad_arg")
    }
}
