import Foundation
import Testing

/// `cloudant migrate otf --db NAME [--dry-run]`: the contract lines of issue 21, typed as a user would.
@Suite("cloudant migrate otf")
struct MigrateCommandTests {
    /// A folder whose store `legacy` holds the documents the original wrote (Tests/Fixtures/OTFDocuments).
    static func legacyStore() throws -> URL {
        let folder = try CLIRunner.temporaryFolder()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/OTFDocuments/documents.json")
        let docs = try #require(try jsonObject(String(decoding: Data(contentsOf: fixtures), as: UTF8.self))["docs"] as? [Any])
        let lines = try docs.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let loaded = try CLIRunner.run(["bulk", "--db", "legacy", "-"], stdin: lines.joined(separator: "\n"), in: folder)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        return folder
    }

    @Test func aDryRunReportsWithoutWritingThenTheRunConvertsAndARerunConvertsNothing() throws {
        let folder = try Self.legacyStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seq = { try jsonObject(try CLIRunner.run(["db", "info", "legacy"], in: folder).stdout)["update_seq"] as? String }
        let before = try seq()

        let preview = try CLIRunner.run(["migrate", "otf", "--db", "legacy", "--dry-run"], in: folder)
        #expect(preview.status == 0, "\(preview.stderr)")
        let planned = try jsonObject(preview.stdout)
        #expect(planned["ok"] as? Bool == true && planned["dryRun"] as? Bool == true)
        #expect(planned["convertedCount"] as? Int == 19)
        #expect((planned["converted"] as? [String: Int])?["OCKOutcome"] == 4)
        #expect(try seq() == before)

        let run = try CLIRunner.run(["migrate", "otf", "--db", "legacy"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let done = try jsonObject(run.stdout)
        #expect(done["dryRun"] as? Bool == false && done["convertedCount"] as? Int == 19)
        #expect(done["moved"] as? Int == 12 && done["rewrittenInPlace"] as? Int == 7)
        #expect((done["skipped"] as? [Any])?.isEmpty == true)

        let listed = try jsonArray(try CLIRunner.run(["care", "list", "outcome", "--db", "legacy"], in: folder).stdout)
        #expect(listed.count == 4)
        let again = try jsonObject(try CLIRunner.run(["--data", folder.appendingPathComponent("cloudant-data").path, "migrate", "otf", "--db", "legacy"]).stdout)
        #expect(again["convertedCount"] as? Int == 0)
    }

    @Test func aMissingStoreIsNotFoundAndABadBatchIsInvalidInput() throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try CLIRunner.run(["migrate", "otf", "--db", "nothing"], in: folder)
        #expect(missing.status == 3, "\(missing.stderr)")
        let batch = try CLIRunner.run(["migrate", "otf", "--db", "nothing", "--batch", "0"], in: folder)
        #expect(batch.status == 2)
    }
}
