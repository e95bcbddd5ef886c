@testable import CloudantCLI
import Foundation
import Testing

/// `cloudant bulk` on hostile input: a directory is refused with a typed error (Foundation's
/// `readData(ofLength:)` would trap on it), a very long line is read in linear time, and a run where every
/// document conflicted exits non-zero.
@Suite("cloudant bulk: hostile input and exit status")
struct BulkCommandTests {
    @Test func aFolderIsRefusedWithAnErrorNotACrash() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CLIRunner.run(["bulk", "--db", "d", folder.path], in: folder)
        #expect(result.status == 2, "exit \(result.status): \(result.stderr)")  // invalid input
        #expect(try jsonObject(result.stderr)["field"] as? String == "file")
        #expect(try jsonObject(result.stderr)["reason"] as? String == "\(folder.path) is a folder; give a JSON Lines file, or - for standard input.")
    }

    @Test func everyDocumentConflictingExitsNonZeroWithASummary() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = #"{"_id":"a"}"# + "\n" + #"{"_id":"b"}"# + "\n"
        let first = try await CLIRunner.run(["bulk", "--db", "d", "-"], stdin: lines, in: folder)
        #expect(first.status == 0, "\(first.stderr)")
        let again = try await CLIRunner.run(["bulk", "--db", "d", "-"], stdin: lines, in: folder)
        #expect(again.status == 4)  // conflict
        #expect(again.stdout.contains("\"conflict\""))  // the per-document results are still printed
        let summary = try jsonObject(again.stderr)
        #expect(summary["error"] as? String == "conflict")
        #expect((summary["advice"] as? String)?.hasPrefix("2 of 2 documents were not written (2 conflict)") == true)
    }

    @Test func someDocumentsRefusedStillWritesTheOthersAndExitsNonZero() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try await CLIRunner.run(["put", "--db", "d", #"{"_id":"a"}"#], in: folder)
        let result = try await CLIRunner.run(["bulk", "--db", "d", "-"], stdin: #"{"_id":"a"}"# + "\n" + #"{"_id":"c"}"#, in: folder)
        #expect(result.status == 4)  // the refusal's category: conflict
        #expect(try await CLIRunner.run(["get", "--db", "d", "c"], in: folder).status == 0)
    }

    /// One batch is written while the next is parsed: results still come one line per committed batch, in
    /// order, and a bad line stops the command after the batch being written is committed and printed, with
    /// the partial batch after it left unwritten.
    @Test func batchesArePrintedInOrderAndABadLineStopsAfterTheBatchesBeforeIt() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = (0..<7).map { #"{"_id":"doc-\#($0)"}"# }
        let whole = try await CLIRunner.run(["bulk", "--db", "d", "--batch-size", "2", "-"], stdin: good.joined(separator: "\n"), in: folder)
        #expect(whole.status == 0, "\(whole.stderr)")
        let printed = whole.stdout.split(separator: "\n").map { line in
            ((try? jsonArray(String(line))) ?? []).compactMap { $0["id"] as? String }
        }
        #expect(printed == [["doc-0", "doc-1"], ["doc-2", "doc-3"], ["doc-4", "doc-5"], ["doc-6"]])

        let lines = (0..<5).map { #"{"_id":"late-\#($0)"}"# } + ["{not json"] + [#"{"_id":"after"}"#]
        let stopped = try await CLIRunner.run(["bulk", "--db", "e", "--batch-size", "2", "-"], stdin: lines.joined(separator: "\n"), in: folder)
        #expect(stopped.status == 2, "exit \(stopped.status): \(stopped.stderr)")  // invalid input
        #expect(try jsonObject(stopped.stderr)["item"] as? Int == 6)  // the line's number
        #expect(stopped.stdout.split(separator: "\n").count == 2)  // late-0…late-3, in two committed batches
        for id in ["late-0", "late-1", "late-2", "late-3"] {
            #expect(try await CLIRunner.run(["get", "--db", "e", id], in: folder).status == 0, "\(id)")
        }
        for id in ["late-4", "after"] {
            #expect(try await CLIRunner.run(["get", "--db", "e", id], in: folder).status != 0, "\(id)")
        }
    }

    @Test func aLineLongerThanManyChunksIsSearchedOnce() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let long = #"{"_id":"long","pad":""# + String(repeating: "x", count: 64 * 1024) + #""}"#
        let text = long + "\n" + #"{"_id":"short"}"# + "\n" + long.replacingOccurrences(of: "\"long\"", with: "\"last\"")
        let file = folder.appendingPathComponent("docs.jsonl")
        try text.write(to: file, atomically: true, encoding: .utf8)
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        // 1 KB chunks: the long lines span 64 chunks each. Rescanning from each line's start would look at
        // about 32 times the input; a single pass looks at each byte once.
        var reader = LineReader(handle, name: "docs.jsonl", chunkSize: 1024)
        var lines: [String] = []
        while let line = try reader.nextLine() { lines.append(String(decoding: line, as: UTF8.self)) }
        #expect(lines.count == 3)
        #expect(lines[1] == #"{"_id":"short"}"#)
        #expect(lines[2].hasSuffix(#"x"}"#))
        #expect(reader.bytesSearched <= text.utf8.count + 3, "searched \(reader.bytesSearched) bytes for \(text.utf8.count)")

        let result = try await CLIRunner.run(["bulk", "--db", "d", file.path], in: folder)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try await CLIRunner.run(["get", "--db", "d", "last"], in: folder).status == 0)
    }
}
