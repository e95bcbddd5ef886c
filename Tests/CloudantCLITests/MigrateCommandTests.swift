import CloudantTestSupport
import Foundation
import Testing

/// `cloudant migrate otf --db NAME [--dry-run]`, typed as a user would.
@Suite("cloudant migrate otf")
struct MigrateCommandTests {
    /// A folder whose store `legacy` holds the documents the original wrote (Tests/Fixtures/OTFDocuments).
    static func legacyStore() async throws -> URL {
        let folder = try CLIRunner.temporaryFolder()
        let fixtures = RepositoryFiles.fixtures("OTFDocuments").appendingPathComponent("documents.json")
        let docs = try #require(try jsonObject(String(decoding: Data(contentsOf: fixtures), as: UTF8.self))["docs"] as? [Any])
        let lines = try docs.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
        let loaded = try await CLIRunner.run(["bulk", "--db", "legacy", "-"], stdin: lines.joined(separator: "\n"), in: folder)
        #expect(loaded.status == 0, "\(loaded.stderr)")
        return folder
    }

    @Test func aDryRunReportsWithoutWritingThenTheRunConvertsAndARerunConvertsNothing() async throws {
        let folder = try await Self.legacyStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        let seq = { try jsonObject(try await CLIRunner.run(["db", "info", "legacy"], in: folder).stdout)["update_seq"] as? String }
        let before = try await seq()

        let preview = try await CLIRunner.run(["migrate", "otf", "--db", "legacy", "--dry-run"], in: folder)
        #expect(preview.status == 0, "\(preview.stderr)")
        let planned = try jsonObject(preview.stdout)
        #expect(planned["ok"] as? Bool == true && planned["dryRun"] as? Bool == true)
        #expect(planned["convertedCount"] as? Int == 19)
        #expect((planned["converted"] as? [String: Int])?["OCKOutcome"] == 4)
        #expect(try await seq() == before)

        let run = try await CLIRunner.run(["migrate", "otf", "--db", "legacy"], in: folder)
        #expect(run.status == 0, "\(run.stderr)")
        let done = try jsonObject(run.stdout)
        #expect(done["dryRun"] as? Bool == false && done["convertedCount"] as? Int == 19)
        #expect(done["moved"] as? Int == 12 && done["rewrittenInPlace"] as? Int == 7)
        #expect((done["skipped"] as? [Any])?.isEmpty == true)

        let listed = try jsonArray(try await CLIRunner.run(["care", "list", "outcome", "--db", "legacy"], in: folder).stdout)
        #expect(listed.count == 4)
        let again = try jsonObject(try await CLIRunner.run(["--data", folder.appendingPathComponent("cloudant-data").path, "migrate", "otf", "--db", "legacy"]).stdout)
        #expect(again["convertedCount"] as? Int == 0)
    }

    @Test func aMissingStoreIsNotFoundAndABadBatchIsInvalidInput() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = try await CLIRunner.run(["migrate", "otf", "--db", "nothing"], in: folder)
        #expect(missing.status == 3, "\(missing.stderr)")
        let batch = try await CLIRunner.run(["migrate", "otf", "--db", "nothing", "--batch", "0"], in: folder)
        #expect(batch.status == 2)
    }
}
