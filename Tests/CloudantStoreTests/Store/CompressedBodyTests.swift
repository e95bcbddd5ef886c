import CloudantCore
@testable import CloudantStore
import CloudantTestSupport
import Foundation
import GRDB
import Testing

/// Bodies are stored as zstd frames (with a dictionary per kind once the kind has enough documents) and
/// read back as the exact JSON bytes a store that does not compress gives.
@Suite("Compressed bodies")
struct CompressedBodyTests {
    /// A reading of a health-like kind, about 400 bytes of JSON that repeat their keys and devices.
    static func reading(_ index: Int) -> JSONValue {
        [
            "_id": .string(String(format: "reading-%05d", index)), "entityType": "reading",
            "value": .number(JSONNumber(40 + index % 140)), "unit": "count/min",
            "source": ["name": "Apple Watch", "bundleIdentifier": "com.apple.health.8B1C", "version": "10.1"],
            "device": ["name": "Apple Watch", "manufacturer": "Apple Inc.", "model": "Watch", "hardware": "Watch6,2"],
            "startDate": .string("2026-01-01T10:\(String(format: "%02d", index % 60)):00Z"),
            "note": .string("reading number \(index) — día \(index % 31) ✓"),
        ]
    }

    /// Random JSON: nested objects and arrays, strings with escapes, combining marks, emoji and control
    /// characters, numbers of every form the parser keeps (big integers, exponents, negative zero).
    static func randomValue(_ random: inout SplitMix64, depth: Int = 0) -> JSONValue {
        let strings = ["", "plain", "quote \" and \\ backslash", "tab\tnew\nline", "é (e + \u{301})", "Ωmega 🫀 ❤️",
            "\u{0001}\u{001F} controls", "日本語のテキスト", String(repeating: "long text ", count: 30)]
        let numbers: [JSONValue] = try! [
            JSONValue(parsing: "0"), JSONValue(parsing: "-0"), JSONValue(parsing: "1.5e300"), JSONValue(parsing: "-2.25E-7"),
            JSONValue(parsing: "12345678901234567890123"), JSONValue(parsing: "3.0"), JSONValue(parsing: "42"),
        ]
        switch depth > 2 ? Int.random(in: 0..<4, using: &random) : Int.random(in: 0..<6, using: &random) {
        case 0: return .string(strings.randomElement(using: &random)!)
        case 1: return numbers.randomElement(using: &random)!
        case 2: return Bool.random(using: &random) ? .bool(Bool.random(using: &random)) : .null
        case 3: return .string(String(UInt64.random(in: 0...UInt64.max, using: &random), radix: 36))
        case 4: return .array((0..<Int.random(in: 0..<5, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            return .object(randomObject(&random, depth: depth + 1))
        }
    }

    static func randomObject(_ random: inout SplitMix64, depth: Int = 0) -> JSONObject {
        let keys = ["a", "value", "ключ", "emoji🫀", "nested", "list", "n", "unit", "x y"]
        var object = JSONObject()
        for _ in 0..<Int.random(in: 1..<7, using: &random) {
            object[keys.randomElement(using: &random)!] = randomValue(&random, depth: depth)
        }
        return object
    }

    @Test func everyBodyReadsBackAsTheSameBytesAStoreThatDoesNotCompressGives() async throws {
        var random = SplitMix64(seed: 20_261_130)
        var documents: [JSONValue] = []
        for index in 0..<1_500 {
            var body = Self.randomObject(&random)
            body["_id"] = .string("doc-\(index)")
            // A kind for most, so a dictionary is trained partway through and both frame forms are stored.
            if index % 5 != 0 { body["entityType"] = "random" }
            documents.append(.object(body))
        }
        var plainOptions = StoreOptions()
        plainOptions.compressesBodies = false
        let compressed = try TemporaryStore()
        let plain = try TemporaryStore(options: plainOptions)
        for batch in stride(from: 0, to: documents.count, by: 250) {
            let slice = Array(documents[batch..<batch + 250])
            _ = try await compressed.store.bulkDocs(slice)
            _ = try await plain.store.bulkDocs(slice)
        }
        #expect(compressed.store.bodyCodec.dictionary(forKind: "random") != nil, "a dictionary was trained for the kind")
        #expect(try await compressed.store.storageStats().bodyCompressionRatio > 1.5)
        #expect(try await plain.store.storageStats().bodyCompressionRatio == 1)

        // Every read path: one document, all docs with bodies, changes with bodies, and a query.
        for index in stride(from: 0, to: documents.count, by: 7) {
            let id = "doc-\(index)"
            let ours = JSONValue.object(try await compressed.store.document(id: id)).jsonBytes()
            let theirs = JSONValue.object(try await plain.store.document(id: id)).jsonBytes()
            #expect(ours == theirs, "\(id) (seed \(random.seed))")
        }
        var allDocs = AllDocsOptions()
        allDocs.includeDocs = true
        #expect(
            try await compressed.store.allDocs(allDocs).json.jsonBytes() == plain.store.allDocs(allDocs).json.jsonBytes())
        var changes = ChangesOptions()
        changes.includeDocs = true
        let ourChanges = try await compressed.store.changes(changes).json
        let theirChanges = try await plain.store.changes(changes).json
        #expect(ourChanges["results"] == theirChanges["results"])
        let query = FindRequest(selector: try MangoSelector(["entityType": "random", "n": ["$exists": true]]), limit: 2_000)
        let ourMatches = try await compressed.store.find(query).docs
        #expect(!ourMatches.isEmpty)
        #expect(ourMatches == (try await plain.store.find(query).docs))
    }

    @Test func aKindTrainsItsDictionaryOnceEnoughOfItsBodiesAreWrittenAndQueriesAndIndexesReadThem() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        for batch in 0..<6 {
            _ = try await store.bulkDocs((0..<250).map { Self.reading(batch * 250 + $0) })
        }
        let dictionary = try #require(store.bodyCodec.dictionary(forKind: "reading"))
        #expect(dictionary.kind == "reading")
        // The first thousand, JSON text until the dictionary, were rewritten with it: nothing is left to compact.
        #expect(try await store.compact(progress: nil).bodiesRecompressed == 0)
        let stats = try await store.storageStats()
        #expect(stats.liveBodyJSONBytes > stats.liveBodyBytes * 3, "bodies \(stats.liveBodyJSONBytes) → \(stats.liveBodyBytes)")
        #expect(stats.json["body_compression_ratio"]?.numberValue.map { $0.doubleValue > 3 } == true)

        // An unindexed query (its conditions pushed into SQL through cloudant_body), then an index built over
        // the compressed bodies, then the same query through the index.
        let query = FindRequest(selector: try MangoSelector(["value": 99, "unit": "count/min"]), limit: 100)
        let scanned = try await store.find(query).docs.compactMap { $0["_id"]?.stringValue }
        #expect(scanned.count == 1_500 / 140 + 1 && scanned.contains("reading-00059"))
        _ = try await store.createIndex(try IndexDefinition(indexRequest: ["index": ["fields": ["value"]], "name": "by-value"]))
        let answer = try await store.find(query)
        #expect(answer.docs.compactMap { $0["_id"]?.stringValue }.sorted() == scanned.sorted())
        #expect(answer.docs.first == .some(try await store.document(id: scanned.sorted()[0])))

        // Reopened, the store reads the dictionary from its file.
        try store.close()
        let reopened = try temp.reopen()
        #expect(reopened.bodyCodec.dictionary(forKind: "reading")?.id == dictionary.id)
        var read = try await reopened.document(id: "reading-01234")
        #expect(read.removeValue(forKey: "_rev") != nil)
        #expect(JSONValue.object(read) == Self.reading(1234))
    }

    @Test func aBatchOfNewDocumentsBringingAThousandOfAnUntrainedKindIsWrittenWithItsDictionary() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        func batch(_ range: Range<Int>) throws -> [NewDocument] {
            try range.map { index in
                var body = try #require(Self.reading(index).objectValue)
                let id = try #require(body.removeValue(forKey: "_id")?.stringValue)
                return try NewDocument(id: id, body: body)
            }
        }
        // Too few of the kind in one batch: written as JSON text, counted toward the usual training.
        _ = try await store.insertNew(try batch(0..<400))
        #expect(store.bodyCodec.dictionary(forKind: "reading") == nil)
        // A batch of a thousand trains from itself before it is written: none of its rows is text to rewrite.
        _ = try await store.insertNew(try batch(400..<1_400))
        let dictionary = try #require(store.bodyCodec.dictionary(forKind: "reading"))
        let stored = try await store.read(.storeUnreadable) { db in
            try Row.fetchAll(db, sql: "SELECT id, body FROM documents ORDER BY rowid").map { row -> (String, Bool, UInt32?) in
                let bytes: [UInt8] = Array(row["body"] as Data)
                let isFrame = bytes.withUnsafeBytes { Zstd.isFrame($0) }
                return (row["id"], isFrame, isFrame ? bytes.withUnsafeBytes { Zstd.dictionaryID(ofFrame: $0) } : nil)
            }
        }
        #expect(stored.count == 1_400)
        #expect(stored[..<400].allSatisfy { !$0.1 }, "the first batch stays text until compaction or training")
        #expect(stored[400...].allSatisfy { $0.1 && $0.2 == dictionary.id })
        // Read back byte for byte as written, and the first batch is what compaction recompresses.
        for index in [0, 399, 400, 1_399] {
            var read = try await store.document(id: String(format: "reading-%05d", index))
            #expect(read.removeValue(forKey: "_rev") != nil)
            #expect(JSONValue.object(read) == Self.reading(index))
        }
        #expect(try await store.compact(progress: nil).bodiesRecompressed == 400)
    }

    @Test func compactionRewritesBodiesWrittenAsTextAndReadsStayTheSame() async throws {
        var plain = StoreOptions()
        plain.compressesBodies = false
        let temp = try TemporaryStore(options: plain)
        for batch in 0..<6 {
            _ = try await temp.store.bulkDocs((0..<250).map { Self.reading(batch * 250 + $0) })
        }
        var allDocs = AllDocsOptions()
        allDocs.includeDocs = true
        let before = try await temp.store.allDocs(allDocs).json.jsonBytes()
        #expect(try await temp.store.storageStats().bodyCompressionRatio == 1)
        try temp.store.close()

        let store = try temp.reopen(options: StoreOptions())
        let summary = try await store.compact(progress: nil)
        #expect(summary.bodiesRecompressed == 1_500)
        #expect(try await store.storageStats().bodyCompressionRatio > 3)
        #expect(try await store.allDocs(allDocs).json.jsonBytes() == before)
        // A second compaction finds nothing left to rewrite.
        #expect(try await store.compact(progress: nil).bodiesRecompressed == 0)
        #expect(try await store.integrityCheck() == ["ok"])
        try store.close()

        // Opened with compression off, compaction gives every body back as JSON text.
        let plainAgain = try temp.reopen(options: plain)
        #expect(try await plainAgain.compact(progress: nil).bodiesRecompressed == 1_500)
        #expect(try await plainAgain.storageStats().bodyCompressionRatio == 1)
        #expect(try await plainAgain.allDocs(allDocs).json.jsonBytes() == before)
    }

    @Test func aBodyWhoseDictionaryTheFileLacksIsAStoreUnreadableError() async throws {
        let temp = try TemporaryStore()
        try await temp.store.put(["_id": "other", "entityType": "note", "text": "a kind of too few documents for a dictionary"])
        for batch in 0..<5 {
            _ = try await temp.store.bulkDocs((0..<250).map { Self.reading(batch * 250 + $0) })
        }
        #expect(temp.store.bodyCodec.dictionary(forKind: "reading") != nil)
        try temp.store.close()
        let queue = try DatabaseQueue(path: temp.store.fileURL.path)
        try await queue.write { db in try db.execute(sql: "DELETE FROM body_dictionaries") }
        try queue.close()
        let store = try temp.reopen()
        let error = await #expect(throws: CloudantError.self) { try await store.document(id: "reading-01200") }
        #expect(error?.code == .storeUnreadable, "\(String(describing: error))")
        // Bodies stored as JSON text still read.
        #expect(try await store.document(id: "other")["entityType"] == "note")
    }
}
