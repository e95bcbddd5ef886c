@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Conditions checked on a stored body before it is parsed only refuse bodies the selector refuses: one
/// condition is judged by the matcher on the value at its path, and every kept body is still matched in full.
@Suite("Body conditions checked before parsing")
struct BodyPrefilterTests {
    private static func selector(_ json: String) throws -> MangoSelector {
        try MangoSelector(JSONValue(parsing: json))
    }

    private static func mayMatch(_ prefilter: BodyPrefilter, _ body: String) throws -> Bool {
        try Array(body.utf8).withUnsafeBufferPointer { try prefilter.mayMatch($0, limits: .default) }
    }

    @Test("A condition on an end of a range the index key column checks is left to the full match; the others refuse bodies")
    func aComparisonTheIndexChecksIsLeftToTheFullMatch() throws {
        let selector = try Self.selector(#"{"type": "walk", "minutes": {"$gt": 10}, "done": true}"#)
        let type = FieldPath(["type"]), minutes = FieldPath(["minutes"])
        let short = #"{"type":"walk","minutes":5,"done":true}"#
        let run = #"{"type":"run","minutes":50,"done":true}"#
        #expect(try !Self.mayMatch(BodyPrefilter(selector: selector), short))
        #expect(try !Self.mayMatch(BodyPrefilter(selector: selector), run))
        #expect(try Self.mayMatch(BodyPrefilter(selector: selector), #"{"type":"walk","minutes":50,"done":true}"#))
        // A lower end checked leaves `$gt` out, and only it.
        let lowerChecked = BodyPrefilter(selector: selector, checked: [minutes: .init(lower: true, upper: false)])
        #expect(try Self.mayMatch(lowerChecked, short))
        #expect(try !Self.mayMatch(lowerChecked, run))
        // `$lt` needs the upper end, `$eq` both; `$exists` is never left out.
        let below = try Self.selector(#"{"minutes": {"$lt": 10, "$exists": true}}"#)
        #expect(try !Self.mayMatch(BodyPrefilter(selector: below, checked: [minutes: .init(lower: true, upper: false)]), #"{"minutes":20}"#))
        #expect(try Self.mayMatch(BodyPrefilter(selector: below, checked: [minutes: .init(lower: false, upper: true)]), #"{"minutes":20}"#))
        #expect(try !Self.mayMatch(BodyPrefilter(selector: below, checked: [minutes: .init(lower: true, upper: true)]), #"{"other":1}"#))
        let equal = try Self.selector(#"{"type": "walk"}"#)
        #expect(try !Self.mayMatch(BodyPrefilter(selector: equal, checked: [type: .init(lower: true, upper: false)]), run))
        #expect(BodyPrefilter(selector: equal, checked: [type: .init(lower: true, upper: true)]).isEmpty)
    }

    @Test("Strings are compared as the matcher compares them: escapes decoded, canonically equivalent text equal, case not")
    func stringEqualityIsTheMatchers() throws {
        let plain = BodyPrefilter(selector: try Self.selector(#"{"name": "Zed"}"#))
        #expect(try Self.mayMatch(plain, #"{"name":"Zed"}"#))
        #expect(try Self.mayMatch(plain, #"{"name":"Zed"}"#))
        #expect(try !Self.mayMatch(plain, #"{"name":"zed"}"#))
        #expect(try !Self.mayMatch(plain, #"{"name":["Zed"]}"#))
        #expect(try !Self.mayMatch(plain, #"{"other":"Zed"}"#))
        // A name written twice is read as its last value, as the parser reads it.
        #expect(try Self.mayMatch(plain, #"{"name":"x","name":"Zed"}"#))
        let accented = BodyPrefilter(selector: try Self.selector(#"{"name": "café"}"#))
        #expect(try Self.mayMatch(accented, "{\"name\":\"cafe\u{301}\"}"))
        #expect(try !Self.mayMatch(accented, #"{"name":"cafe"}"#))
        let nested = BodyPrefilter(selector: try Self.selector(#"{"source.name": "Watch"}"#))
        #expect(try Self.mayMatch(nested, #"{"source":{"version":"1","name":"Watch"}}"#))
        #expect(try !Self.mayMatch(nested, #"{"source":{"name":"Phone"}}"#))
        #expect(try !Self.mayMatch(nested, #"{"source":{}}"#))
        // Through something that is not an object, Mango's lookup fails, and the condition with it.
        #expect(try !Self.mayMatch(nested, #"{"source":[{"name":"Watch"}]}"#))
        #expect(try !Self.mayMatch(nested, #"{"source":"Watch"}"#))
        #expect(try !Self.mayMatch(BodyPrefilter(selector: try Self.selector(#"{"source.name": {"$exists": false}}"#)), #"{"source":3}"#))
        #expect(try Self.mayMatch(BodyPrefilter(selector: try Self.selector(#"{"source.name": {"$exists": false}}"#)), #"{"source":{}}"#))
    }

    @Test(
        "On random bodies and conditions the prefilter refuses only what the selector refuses, and decides one top-level condition as the matcher does",
        arguments: [1, 2, 3])
    func refusesOnlyWhatTheSelectorRefuses(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var refused = 0
        for _ in 0..<400 {
            var body: JSONObject = [:]
            for field in ["a", "b", "c"] where Int.random(in: 0..<5, using: &rng) > 0 {
                body[field] = IndexAgreementTests.value(&rng)
            }
            let single = try MangoSelector(IndexAgreementTests.condition(&rng))
            let several = try MangoSelector(["$and": [IndexAgreementTests.condition(&rng), IndexAgreementTests.condition(&rng)]])
            let json = JSONValue.object(body).jsonBytes()
            let keptSingle = try json.withUnsafeBufferPointer { try BodyPrefilter(selector: single).mayMatch($0, limits: .default) }
            let keptSeveral = try json.withUnsafeBufferPointer { try BodyPrefilter(selector: several).mayMatch($0, limits: .default) }
            #expect(keptSingle == single.matches(body), "\(single.root) on \(body)")
            #expect(keptSeveral || !several.matches(body), "\(several.root) on \(body)")
            if !keptSeveral { refused += 1 }
        }
        #expect(refused > 100)
    }

    @Test("Indexed finds with an equality on the key column return exactly the matching documents")
    func indexedEqualitiesStayExact() async throws {
        let temp = try TemporaryStore()
        let store = temp.store
        try await store.createIndex(IndexDefinition(name: "by-type-minutes", fields: [.ascending("type"), .ascending("minutes")]))
        // (id, type, minutes); type 1 is the number 1.
        var rows: [(id: String, type: String, minutes: Int)] = []
        var documents: [JSONValue] = []
        for number in 0..<300 {
            let type = ["walk", "run", "1"][number % 3]
            rows.append((String(format: "d%03d", number), type, number % 40))
            let typeValue: JSONValue = type == "1" ? .number(JSONNumber(1)) : .string(type)
            documents.append(["_id": .string(rows.last!.id), "type": typeValue, "minutes": .number(JSONNumber(number % 40))])
        }
        // A number equal by value but written as a real, which collation keys and SQLite both compare by value.
        rows.append(("real", "1", 5))
        documents.append(["_id": "real", "type": .number(.double(1.0)), "minutes": 5])
        _ = try await store.bulkDocs(documents)

        for (selector, expected) in [
            (#"{"type": "walk", "minutes": 7}"#, rows.filter { $0.type == "walk" && $0.minutes == 7 }),
            (#"{"type": 1, "minutes": {"$gte": 5, "$lt": 7}}"#, rows.filter { $0.type == "1" && (5..<7).contains($0.minutes) }),
            (#"{"type": "run", "minutes": {"$gt": 30}}"#, rows.filter { $0.type == "run" && $0.minutes > 30 }),
        ] {
            let found = try await store.find(FindRequest(["selector": try JSONValue(parsing: selector), "limit": 1000]))
            let ids = found.docs.compactMap { $0["_id"]?.stringValue }.sorted()
            #expect(ids == expected.map(\.id).sorted(), "\(selector)")
            #expect(!ids.isEmpty, "\(selector)")
        }
    }

    @Test("An unindexed find over compressed and text bodies returns exactly the documents the selector matches")
    func unindexedFindsStayExact() async throws {
        var textOptions = StoreOptions()
        textOptions.compressesBodies = false
        for options in [StoreOptions(), textOptions] {
            let temp = try TemporaryStore(options: options)
            var rng = SplitMix64(seed: 9)
            let documents: [JSONObject] = (0..<1_500).map { number in
                var document: JSONObject = ["_id": .string(String(format: "d%04d", number))]
                for field in ["a", "b", "c"] where Int.random(in: 0..<5, using: &rng) > 0 {
                    document[field] = IndexAgreementTests.value(&rng)
                }
                return document
            }
            _ = try await temp.store.bulkDocs(documents.map(JSONValue.object))
            for _ in 0..<40 {
                let json = IndexAgreementTests.selector(&rng)
                let selector = try MangoSelector(json)
                let found = try await temp.store.find(FindRequest(["selector": json, "limit": 10_000]))
                let expected = IndexAgreementTests.reference(documents, selector: selector, sort: [])
                #expect(found.docs.compactMap { $0["_id"]?.stringValue } == expected, "\(json)")
            }
        }
    }
}
