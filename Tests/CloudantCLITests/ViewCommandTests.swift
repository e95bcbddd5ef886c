import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("cloudant view, and a view update killed midway")
struct ViewCommandTests {
    static let designDocument: JSONObject = [
        "_id": "_design/stats",
        "views": [
            "by_day": ["map": "function(doc) { if (doc.day) emit([doc.day.slice(0, 7), doc.day], doc.bpm); }", "reduce": "_stats"],
            "traced": [
                "map": "function(doc) { log('mapped ' + doc._id); if (doc.n !== undefined) emit(doc.n, doc.n); }", "reduce": "_sum",
            ],
        ],
    ]

    /// A store of `count` documents numbered from `start`, with the design document.
    static func write(_ count: Int, from start: Int = 0, into folder: URL, name: String = "clinic") async throws {
        let store = try DocumentStore.open(name: name, in: StoreDirectory(path: folder.appendingPathComponent("cloudant-data").path))
        defer { try? store.close() }
        if start == 0 { try await store.put(designDocument) }
        for first in stride(from: start, to: start + count, by: 1000) {
            let batch: [JSONValue] = (first..<min(start + count, first + 1000)).map { ["_id": .string(String(format: "d%06d", $0)), "n": .number(JSONNumber($0))] }
            _ = try await store.bulkDocs(batch)
        }
    }

    @Test func viewPrintsCouchDBsJSONWithItsParametersAndGlobalOptionsEitherSide() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let readings = [
            #"{"_id":"r1","day":"2024-05-01","bpm":60}"#, #"{"_id":"r2","day":"2024-05-01","bpm":70}"#,
            #"{"_id":"r3","day":"2024-05-02","bpm":65}"#, #"{"_id":"r4","day":"2024-06-01","bpm":80}"#,
        ]
        let file = try CLIRunner.jsonLines(readings, named: "readings.jsonl", in: folder)
        let data = folder.appendingPathComponent("data").path
        #expect(try await CLIRunner.run(["--data", data, "bulk", "--db", "clinic", file.path]).status == 0)
        let designDocument = JSONValue.object(Self.designDocument).jsonString()
        #expect(try await CLIRunner.run(["--data", data, "put", "--db", "clinic", designDocument]).status == 0)

        let months = try await CLIRunner.run(["--data", data, "view", "--db", "clinic", "stats/by_day", "--group-level", "1"])
        #expect(months.status == 0, "\(months.stderr)")
        let monthRows = try JSONValue(parsing: months.stdout)["rows"]?.arrayValue
        #expect(monthRows?.map { $0["key"] } == [["2024-05"], ["2024-06"]])
        #expect(monthRows?.first?["value"]?["sum"] == 195)

        let day = try await CLIRunner.run([
            "view", "--db", "clinic", "_design/stats/by_day", "--reduce", "false", "--key", #"["2024-05","2024-05-01"]"#,
            "--include-docs", "--limit", "1", "--data", data,
        ])
        #expect(day.status == 0, "\(day.stderr)")
        let answer = try JSONValue(parsing: day.stdout)
        #expect(answer["total_rows"] == 4 && answer["offset"] == 0)
        #expect(answer["rows"]?.arrayValue?.first?["doc"]?["bpm"] == 60)

        let range = try await CLIRunner.run([
            "--data", data, "view", "--db", "clinic", "stats/by_day", "--start-key", #"["2024-05","2024-05-02"]"#,
            "--end-key", #"["2024-06"]"#, "--reduce", "false",
        ])
        #expect(try JSONValue(parsing: range.stdout)["rows"]?.arrayValue?.map { $0["id"] } == ["r3"])

        let bad = try await CLIRunner.run(["--data", data, "view", "--db", "clinic", "stats/by_day", "--group-level", "1", "--reduce", "false"])
        #expect(bad.status != 0)
        #expect(try JSONValue(parsing: bad.stderr)["error"] == "query_parse_error")
        let missing = try await CLIRunner.run(["--data", data, "view", "--db", "clinic", "stats/nope"])
        #expect(try JSONValue(parsing: missing.stderr)["reason"] == "missing_named_view")
    }

    /// The index's recorded sequence and rows, read straight from the file.
    private func indexState(_ file: URL) throws -> (seq: Int64, rows: Int, ids: Set<String>) {
        let database = try DatabaseQueue(path: file.path)
        defer { try? database.close() }
        return try database.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT table_name, update_seq FROM view_indexes") else { return (0, 0, []) }
            let table: String = row[0]
            let ids = try String.fetchAll(db, sql: "SELECT doc_id FROM \(table)")
            return (row[1], ids.count, Set(ids))
        }
    }

    /// The `_sum` of `stats/traced` as `cloudant view` answers it.
    private func reduced(in folder: URL) async throws -> JSONValue? {
        let answer = try await CLIRunner.run(["view", "--db", "clinic", "stats/traced"], in: folder)
        #expect(answer.status == 0, "\(answer.stderr)")
        return try JSONValue(parsing: answer.stdout)["rows"]?.arrayValue?.first?["value"]
    }

    /// How many reduction blocks the index keeps, none of them dirty.
    private func blocks(_ file: URL) throws -> Int {
        let database = try DatabaseQueue(path: file.path)
        defer { try? database.close() }
        return try database.read { db in
            let table = try #require(try String.fetchOne(db, sql: "SELECT table_name FROM view_indexes")) + "_blocks"
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table) WHERE dirty") == 0)
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        }
    }

    /// Starts `cloudant view … stats/traced` and kills it once it has mapped `mapped` documents (its `log()`
    /// lines say so), reading its standard error on a thread of its own.
    private func killView(in folder: URL, after mapped: Int) async throws {
        let process = try ChildProcess(
            CLIRunner.executable.path, ["view", "--db", "clinic", "stats/traced", "--limit", "1"], workingDirectory: folder,
            stdout: .null, stderr: .pipe)
        let (seen, killedMidway) = try await onOwnThread { () throws -> (Int, Bool) in
            var seen = 0
            var pending = Data()
            // Reading ends when the child has mapped enough or closes standard error (it ended).
            while seen < mapped, let error = process.standardError {
                let chunk = error.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    if String(decoding: pending[..<newline], as: UTF8.self).contains("mapped d") { seen += 1 }
                    pending.removeSubrange(...newline)
                }
            }
            let killedMidway = process.isRunning && seen >= mapped
            process.send(SIGKILL)
            _ = process.wait()
            return (seen, killedMidway)
        }
        try #require(killedMidway, "the update ended before the test could kill it (\(seen) mapped)")
    }

    @Test func anUpdateKilledMidwayKeepsItsCommittedBatchesAndTheNextGoesOnFromThem() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cloudant-data/clinic.sqlite")
        try await Self.write(2000, into: folder)
        // The first build, complete.
        let built = try await CLIRunner.run(["view", "--db", "clinic", "stats/traced", "--limit", "1"], in: folder)
        #expect(built.status == 0, "\(built.stderr)")
        #expect(try indexState(file).rows == 2000)
        // 5000 more documents, then an update killed while it maps the second batch of them.
        try await Self.write(5000, from: 2000, into: folder)
        try await killView(in: folder, after: 1500)

        let left = try indexState(file)
        // Batches commit whole: the index is at the end of a batch (the design document was sequence 1).
        #expect([2001, 3001, 4001, 5001, 6001].contains(left.seq), "\(left.seq)")
        #expect(left.rows == Int(left.seq) - 1)
        #expect(left.ids == Set((0..<(Int(left.seq) - 1)).map { String(format: "d%06d", $0) }))

        let resumed = try await CLIRunner.run(["view", "--db", "clinic", "stats/traced", "--skip", "6990", "--reduce", "false"], in: folder)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let answer = try JSONValue(parsing: resumed.stdout)
        #expect(answer["total_rows"] == 7000)
        #expect(answer["rows"]?.arrayValue?.map { $0["key"] } == (6990..<7000).map { .number(JSONNumber($0)) })
        // The resumed update mapped only what the killed one had not committed.
        let mapped = resumed.stderr.split(separator: "\n").filter { $0.contains("mapped d") }.count
        #expect(mapped == 7001 - Int(left.seq))
        // The reduce's stored blocks went with the rows they sum: 0 + 1 + … + 6999.
        #expect(try await reduced(in: folder) == .number(.integer(7000 * 6999 / 2)))
        #expect(try blocks(file) > 1)
    }

    @Test func aFirstBuildKilledMidwayLeavesTheIndexEmptyAndTheNextBuildsIt() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cloudant-data/clinic.sqlite")
        try await Self.write(4000, into: folder)
        try await killView(in: folder, after: 2500)
        let left = try indexState(file)
        #expect(left.seq == 0 && left.rows == 0)
        let rebuilt = try await CLIRunner.run(["view", "--db", "clinic", "stats/traced", "--limit", "2", "--reduce", "false"], in: folder)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(try JSONValue(parsing: rebuilt.stdout)["total_rows"] == 4000)
        #expect(try indexState(file).rows == 4000)
        #expect(try await reduced(in: folder) == .number(.integer(4000 * 3999 / 2)))
    }

    /// A first build copies its sorted rows into `view_<n>_building` in one transaction, indexes them by document
    /// in a second, then swaps that table in with the index's sequence in a third. The test stops the build
    /// (SIGSTOP) once it sees the rows copied while the index is still empty, checks that they are all there
    /// (the copy is never seen in part), and kills it there: the kill lands before the swap.
    @Test func aFirstBuildKilledWhileStoringItsRowsLeavesTheIndexEmptyAndTheNextBuildsIt() async throws {
        let folder = try CLIRunner.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("cloudant-data/clinic.sqlite")
        try await Self.write(5000, into: folder)
        // 50 rows per document: 250,000 rows, whose index by document takes a while to make.
        let store = try DocumentStore.open(name: "clinic", in: StoreDirectory(path: folder.appendingPathComponent("cloudant-data").path))
        try await store.put([
            "_id": "_design/many",
            "views": ["rows": ["map": "function(doc) { if (doc.n !== undefined) for (var i = 0; i < 50; i++) emit([doc.n, i], 1); }", "reduce": "_count"]],
        ])
        try store.close()

        let process = try ChildProcess(
            CLIRunner.executable.path, ["view", "--db", "clinic", "many/rows", "--limit", "1"], workingDirectory: folder,
            stdout: .null, stderr: .null)
        let killedWith = try await onOwnThread { () throws -> Int? in
            let database = try DatabaseQueue(path: file.path)
            defer { try? database.close() }
            /// The rows stored so far beside the index, while the index is still empty; nil otherwise.
            func partStored(_ db: Database) throws -> Int? {
                guard try Int.fetchOne(db, sql: "SELECT update_seq FROM view_indexes") == 0,
                    let table = try String.fetchOne(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE 'view%\\_building' ESCAPE '\\'")
                else { return nil }
                return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)")
            }
            while process.isRunning {
                guard let rows = try database.read(partStored), rows > 0 else { continue }
                // Stopped, the build changes nothing: what the file holds now is what the kill leaves.
                process.send(SIGSTOP)
                let stopped = try database.read(partStored)
                process.send(SIGKILL)
                _ = process.wait()
                return stopped
            }
            return nil
        }
        let rows = try #require(killedWith, "the build ended before the test could stop it while it stored its rows")
        #expect(rows == 250_000, "\(rows) rows stored when killed")

        // The index is empty, at sequence 0; the copied table is left beside it.
        let left = try indexState(file)
        #expect(left.seq == 0 && left.rows == 0)
        #expect(try UpgradeKillTests.count("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'view%\\_building' ESCAPE '\\'", in: file) == 1)

        let rebuilt = try await CLIRunner.run(["view", "--db", "clinic", "many/rows"], in: folder)
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(try JSONValue(parsing: rebuilt.stdout)["rows"]?.arrayValue?.first?["value"] == 250_000)
        let page = try await CLIRunner.run(["view", "--db", "clinic", "many/rows", "--reduce", "false", "--skip", "249999"], in: folder)
        let answer = try JSONValue(parsing: page.stdout)
        #expect(answer["total_rows"] == 250_000)
        #expect(answer["rows"]?.arrayValue?.first?["key"] == [4999, 49])
        #expect(try UpgradeKillTests.count("SELECT COUNT(*) FROM sqlite_master WHERE name LIKE 'view%\\_building' ESCAPE '\\'", in: file) == 0)
    }
}
