import Foundation
import Testing

/// `cloudant db stats --db NAME` and `cloudant compact --db NAME` as a user types them.
@Suite("cloudant db stats and compact")
struct StatsCommandTests {
    @Test func statsSayWhatCompactionGivesBackAndCompactShrinksTheFile() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Random hex padding (about 1,000 bytes of entropy each): the store compresses bodies.
        let lines = CLIRunner.randomlyPaddedDocuments(300, hexDigits: 2_000)
        #expect(try await CLIRunner.run(["bulk", "--db", "notes", "-"], stdin: lines.joined(separator: "\n"), in: folder).status == 0)
        // Every document edited once: 300 old bodies for compaction to drop.
        let changes = try jsonObject(try await CLIRunner.run(["changes", "--db", "notes"], in: folder).stdout)
        let edits = (changes["results"] as? [[String: Any]] ?? []).compactMap { row -> String? in
            guard let id = row["id"] as? String, let rev = (row["changes"] as? [[String: String]])?.first?["rev"] else { return nil }
            return #"{"_id":"\#(id)","_rev":"\#(rev)","small":true}"#
        }
        #expect(try await CLIRunner.run(["bulk", "--db", "notes", "-"], stdin: edits.joined(separator: "\n"), in: folder).status == 0)

        let before = try await CLIRunner.run(["db", "stats", "--db", "notes"], in: folder)
        #expect(before.status == 0, "\(before.stderr)")
        let stats = try jsonObject(before.stdout)
        #expect(stats["db"] as? String == "notes" && stats["doc_count"] as? Int == 300 && stats["doc_del_count"] as? Int == 0)
        #expect(stats["other_revision_bodies"] as? Int == 300)
        #expect((stats["reclaimable_bytes"] as? Int ?? 0) >= 300 * 900)
        for key in [
            "revision_bodies", "live_body_bytes", "live_body_json_bytes", "tree_bytes", "attachment_bytes", "file_size",
            "wal_size", "free_bytes",
        ] {
            #expect(stats[key] is Int, "\(key) missing")
        }
        #expect(stats["bytes_per_document"] as? Int == (stats["file_size"] as? Int ?? 0) / 300)
        let structures = try #require(stats["structures"] as? [[String: Any]])
        let documents = try #require(structures.first { $0["name"] as? String == "documents" })
        #expect(documents["kind"] as? String == "table" && (documents["bytes"] as? Int ?? 0) > 0)
        #expect(documents["bytes_per_document"] as? Int == (documents["bytes"] as? Int ?? 0) / 300)
        // The live bodies (`{"small":true}`, too small to compress) are stored as their JSON.
        #expect(stats["body_compression_ratio"] as? Double == 1 || stats["body_compression_ratio"] as? Int == 1, "\(stats)")

        let compacted = try jsonObject(try await CLIRunner.run(["compact", "--db", "notes"], in: folder).stdout)
        #expect(compacted["revisions_compacted"] as? Int == 300 && compacted["bodies_recompressed"] as? Int == 0)
        let shrunk = try #require(compacted["file_size_after"] as? Int)
        #expect(shrunk < (compacted["file_size_before"] as? Int ?? 0))
        let after = try jsonObject(try await CLIRunner.run(["db", "stats", "--db", "notes"], in: folder).stdout)
        #expect(after["other_revision_bodies"] as? Int == 0)
        #expect((after["file_size"] as? Int ?? .max) < (compacted["file_size_before"] as? Int ?? 0), "\(after)")
        #expect(try await CLIRunner.run(["db", "stats", "--db", "missing"], in: folder).status == 3)
    }
}
