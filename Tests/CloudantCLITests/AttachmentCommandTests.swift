import Foundation
import Testing

/// `cloudant attachment put|get` as a user types them.
@Suite("cloudant attachment")
struct AttachmentCommandTests {
    @Test func aFilePutAsAnAttachmentComesBackByteForByteAndANewRevisionNeedsTheCurrentOne() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let bytes = Array(FileHandle(forReadingAtPath: "/dev/urandom")?.readData(ofLength: 700_000) ?? Data(count: 700_000))
        let input = folder.appendingPathComponent("scan.bin")
        try Data(bytes).write(to: input)

        let put = try await CLIRunner.run(
            ["attachment", "put", "--db", "scans", "--id", "visit", "--name", "scan.bin", "--file", input.path,
             "--content-type", "image/png"], in: folder)
        #expect(put.status == 0, "\(put.stderr)")
        let written = try jsonObject(put.stdout)
        #expect(written["ok"] as? Bool == true && written["id"] as? String == "visit")
        let rev = try #require(written["rev"] as? String)

        let out = folder.appendingPathComponent("copy.bin")
        let get = try await CLIRunner.run(
            ["--data", folder.appendingPathComponent("cloudant-data").path, "attachment", "get", "--db", "scans", "--id", "visit",
             "--name", "scan.bin", "--out", out.path], in: folder)
        #expect(get.status == 0, "\(get.stderr)")
        #expect(try Data(contentsOf: out) == Data(bytes))
        let shown = try jsonObject(get.stdout)
        #expect(shown["length"] as? Int == 700_000 && shown["content_type"] as? String == "image/png")

        // A text attachment from standard input, as a second attachment of the current revision.
        let text = String(repeating: "pulse 64\n", count: 10_000)
        let second = try await CLIRunner.run(
            ["attachment", "put", "--db", "scans", "--id", "visit", "--name", "notes.txt", "--rev", rev,
             "--content-type", "text/plain"], stdin: text, in: folder)
        #expect(second.status == 0, "\(second.stderr)")
        let stdout = try await CLIRunner.run(["attachment", "get", "--db", "scans", "--id", "visit", "--name", "notes.txt"], in: folder)
        #expect(stdout.stdout == text)

        // Editing a revision that is no longer current is a conflict (exit status 3 or the conflict status).
        let stale = try await CLIRunner.run(
            ["attachment", "put", "--db", "scans", "--id", "visit", "--name", "x.bin", "--rev", rev, "--file", input.path], in: folder)
        #expect(stale.status != 0 && stale.stderr.contains("conflict"))
        let missing = try await CLIRunner.run(["attachment", "get", "--db", "scans", "--id", "visit", "--name", "nope"], in: folder)
        #expect(missing.status != 0)
    }
}
