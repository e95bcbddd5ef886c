import Foundation
import GRDB
import Testing

/// The exit status of each error category, as a script sees it: 0 ok, 1 internal, 2 invalid input, 3 not found,
/// 4 conflict, 5 unauthorized, 6 unavailable.
@Suite("cloudant exit status")
struct ExitStatusTests {
    @Test func invalidInputExitsWithTwoWhetherTheCommandLineOrTheInputIsWrong() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let unknownOption = try await CLIRunner.run(["db", "list", "--bogus"], in: folder)
        #expect(unknownOption.status == 2)
        #expect(unknownOption.stderr.contains("Unknown option '--bogus'"))
        let missingArgument = try await CLIRunner.run(["get", "--db", "notes"], in: folder)
        #expect(missingArgument.status == 2)
        let badJSON = try await CLIRunner.run(["put", "--db", "notes", "{not json"], in: folder)
        try badJSON.expectError(status: 2, ["error": "bad_request"])
        let badSchedule = try await CLIRunner.run(
            ["care", "add", "task"],
            stdin: #"{"id":"t","schedule":{"elements":[{"start":"2024-01-01T00:00:00Z","interval":{"day":0}}]}}"#,
            in: folder)
        try badSchedule.expectError(status: 2, ["code": "invalidSchedule"])
    }

    @Test func notFoundExitsWithThree() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["db", "info", "nothing"], in: folder).status == 3)
        #expect(try await CLIRunner.run(["put", "--db", "notes", #"{"_id":"a"}"#], in: folder).status == 0)
        let missing = try await CLIRunner.run(["get", "--db", "notes", "b"], in: folder)
        try missing.expectError(status: 3, ["error": "not_found"])
    }

    @Test func conflictExitsWithFourForStoresDocumentsAndCareObjects() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["db", "create", "x"], in: folder).status == 0)
        #expect(try await CLIRunner.run(["db", "create", "x"], in: folder).status == 4)
        #expect(try await CLIRunner.run(["put", "--db", "x", #"{"_id":"a"}"#], in: folder).status == 0)
        let stale = try await CLIRunner.run(["put", "--db", "x", #"{"_id":"a"}"#], in: folder)
        try stale.expectError(status: 4, ["error": "conflict"])

        let plan = #"{"id":"p","title":"P","effectiveDate":"2024-01-01T00:00:00Z"}"#
        #expect(try await CLIRunner.run(["care", "add", "careplan"], stdin: plan, in: folder).status == 0)
        let again = try await CLIRunner.run(["care", "add", "careplan"], stdin: plan, in: folder)
        try again.expectError(status: 4, ["error": "conflict", "code": "duplicateVersion", "id": "p"])
    }

    @Test func unauthorizedExitsWithFiveWhenAPeerRefusesTheCredentials() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServeProcess.start(["serve", "--port", "0", "--admin", "admin:secret"], in: folder)
        let url = try #require(URL(string: server.url))
        let source = "http://admin:wrong@\(url.host ?? "127.0.0.1"):\(url.port ?? 0)/notes"
        let refused = try await CLIRunner.run(["replicate", source, "copy"], in: folder)
        #expect(refused.status == 5, "\(refused.stderr)")
        #expect(try jsonObject(refused.stderr)["status"] as? Int == 401)
    }

    @Test func unavailableExitsWithSixWhenTheServersAddressIsInUse() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await ServeProcess.start(["serve", "--port", "0"], in: folder)
        let port = try #require(URL(string: first.url)?.port)
        let second = try await CLIRunner.run(["serve", "--port", "\(port)"], in: folder)
        try second.expectError(status: 6, ["error": "bindFailed"])
    }

    @Test func internalExitsWithOneWhenTheStoreIsDamaged() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try CLIRunner.jsonLines(CLIRunner.randomlyPaddedDocuments(3000, hexDigits: 300), in: folder)
        #expect(try await CLIRunner.run(["bulk", "--db", "big", file.path], in: folder).status == 0)
        // The command may exit with its last commits still in the store's write-ahead log (a checkpoint runs
        // when the writer gets to it, and the store's last connection to close may be a read-only one, which
        // SQLite never checkpoints on): a TRUNCATE checkpoint copies the log into the file, so the documents'
        // pages are where the damage goes.
        let path = folder.appendingPathComponent("cloudant-data/big.sqlite")
        try await DatabaseQueue(path: path.path).writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        // Five pages in the middle of the file overwritten, whatever its size (bodies are compressed): the
        // documents' pages make up most of it.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path.path)[.size] as? Int)
        try #require(size >= 64 * 4096, "the documents are in the file, not only in its log")
        let store = try FileHandle(forUpdating: path)
        try store.seek(toOffset: UInt64(size / 2 / 4096 * 4096))
        store.write(Data(repeating: 0xFF, count: 5 * 4096))
        try store.close()
        let check = try await CLIRunner.run(["db", "check", "big"], in: folder)
        #expect(check.status == 1)
        #expect(try jsonObject(check.stdout)["ok"] as? Bool == false)
    }
}
