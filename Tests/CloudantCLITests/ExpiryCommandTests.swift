import Foundation
import Testing

/// `cloudant db expiry --db NAME [--field F | --off] [--purge]` as a user types it.
@Suite("cloudant db expiry")
struct ExpiryCommandTests {
    @Test func settingTheFieldPurgingAndTurningItOff() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let docs = [
            #"{"_id":"past","expiresAt":"2001-01-01T00:00:00Z"}"#, #"{"_id":"future","expiresAt":"2999-01-01T00:00:00Z"}"#,
            #"{"_id":"plain"}"#,
        ]
        #expect(try await CLIRunner.run(["bulk", "--db", "s", "-"], stdin: docs.joined(separator: "\n"), in: folder).status == 0)
        let shown = try jsonObject(try await CLIRunner.run(["db", "expiry", "--db", "s"], in: folder).stdout)
        #expect(shown["field"] is NSNull)

        // Global options before the subcommand work too.
        let set = try await CLIRunner.run(["--data", folder.appendingPathComponent("cloudant-data").path, "db", "expiry", "--db", "s", "--field", "expiresAt", "--purge"], in: folder)
        #expect(set.status == 0, "\(set.stderr)")
        let answer = try jsonObject(set.stdout)
        #expect(answer["field"] as? String == "expiresAt")
        // Setting the field also wakes the store's background purge for what is already due; whichever of the
        // two gets to "past" first purges it, so the command lists it or finds it already gone.
        #expect(answer["purged"] as? [String] == ["past"] || answer["purged"] as? [String] == [], "\(set.stdout)")
        #expect(try await CLIRunner.run(["get", "--db", "s", "past"], in: folder).status == 3)

        let off = try jsonObject(try await CLIRunner.run(["db", "expiry", "--db", "s", "--off"], in: folder).stdout)
        #expect(off["field"] is NSNull)
        #expect(try await CLIRunner.run(["db", "expiry", "--db", "s", "--field", "_bad"], in: folder).status == 2)
        #expect(try await CLIRunner.run(["db", "expiry", "--db", "s", "--field", "x", "--off"], in: folder).status != 0)
        #expect(try await CLIRunner.run(["db", "expiry", "--db", "missing"], in: folder).status == 3)
    }
}

/// `cloudant db purge-tombstones --db NAME --older-than-days N [--ignore-checkpoints]` as a user types it.
@Suite("cloudant db purge-tombstones")
struct PurgeTombstonesCommandTests {
    @Test func tombstonesGoOnceOlderThanTheWindowAndCheckpointsAllow() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try await CLIRunner.run(["bulk", "--db", "n", "-"], stdin: #"{"_id":"a"}"# + "\n" + #"{"_id":"b"}"#, in: folder).status == 0)
        let all = try jsonObject(try await CLIRunner.run(["changes", "--db", "n"], in: folder).stdout)
        let revs = (all["results"] as? [[String: Any]] ?? []).compactMap { ($0["changes"] as? [[String: String]])?.first?["rev"] }
        let deletes = zip(["a", "b"], revs).map { #"{"_id":"\#($0)","_rev":"\#($1)","_deleted":true}"# }
        #expect(try await CLIRunner.run(["bulk", "--db", "n", "-"], stdin: deletes.joined(separator: "\n"), in: folder).status == 0)

        let young = try jsonObject(try await CLIRunner.run(["db", "purge-tombstones", "--db", "n", "--older-than-days", "30"], in: folder).stdout)
        #expect(young["purged"] as? [String] == [])
        let now = try jsonObject(try await CLIRunner.run(["db", "purge-tombstones", "--db", "n", "--older-than-days", "0"], in: folder).stdout)
        #expect(now["purged"] as? [String] == ["a", "b"])
        let info = try jsonObject(try await CLIRunner.run(["db", "info", "n"], in: folder).stdout)
        #expect(info["doc_del_count"] as? Int == 0)
        #expect(try await CLIRunner.run(["db", "purge-tombstones", "--db", "n", "--older-than-days", "-1"], in: folder).status == 2)
    }
}
