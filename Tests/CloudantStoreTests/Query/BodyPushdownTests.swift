@testable import CloudantStore
import CloudantCore
import CloudantTestSupport
import Foundation
import Testing

/// Body conditions pushed into SQL are only a pre-filter: the matcher re-checks every row. An `$eq` the
/// index scan already checks on its key column is not pushed again.
@Suite("Body pushdown")
struct BodyPushdownTests {
    private static func selector(_ json: String) throws -> MangoSelector {
        try MangoSelector(JSONValue(parsing: json))
    }

    @Test("An $eq the index answers is not pushed; the other conditions still are")
    func anEqualityTheIndexAnswersIsNotPushedAgain() throws {
        let selector = try Self.selector(#"{"type": "walk", "minutes": {"$gt": 10}, "done": true}"#)
        let all = BodyPushdown.conditions(for: selector, body: "b")
        #expect(all.0.count == 3)
        let rest = BodyPushdown.conditions(for: selector, body: "b", answered: [FieldPath(["type"])])
        #expect(rest.0.count == 2)
        #expect(rest.0.allSatisfy { !$0.contains("= ?") || $0.contains("json_type") })
        // Only equalities are skipped: a range on an answered field is still pushed.
        let range = try Self.selector(#"{"minutes": {"$gt": 10}}"#)
        #expect(BodyPushdown.conditions(for: range, body: "b", answered: [FieldPath(["minutes"])]).0.count == 1)
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
}
