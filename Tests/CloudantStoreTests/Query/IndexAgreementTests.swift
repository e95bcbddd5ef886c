import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

/// SQL-pushed evaluation (key ranges on index tables, ordered index scans, bookmarks as SQL bounds) must
/// return exactly what the in-memory matcher says, in the same order, for any selector.
@Suite("Indexed queries agree with in-memory evaluation")
struct IndexAgreementTests {
    static let strings = ["", "a", "A", "ab", "b", "é", "e\u{301}", "10", "9", "-x", "Zed"]

    static func value(_ rng: inout some RandomNumberGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 0 ? 6 : 8), using: &rng) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &rng))
        case 2: return .number(.integer(Int64.random(in: -3...3, using: &rng)))
        case 3: return .number(.double(Double(Int.random(in: -6...6, using: &rng)) / 2))
        case 4, 5: return .string(strings.randomElement(using: &rng) ?? "")
        case 6: return .array((0..<Int.random(in: 0...2, using: &rng)).map { _ in value(&rng, depth: 1) })
        default: return ["k": value(&rng, depth: 1)]
        }
    }

    static func condition(_ rng: inout some RandomNumberGenerator) -> JSONValue {
        let field = ["a", "b", "c", "a.k", "c.k"].randomElement(using: &rng) ?? "a"
        let argument = value(&rng)
        let condition: JSONValue =
            switch Int.random(in: 0..<12, using: &rng) {
            case 0: argument
            case 1: ["$gt": argument]
            case 2: ["$gte": argument]
            case 3: ["$lt": argument]
            case 4: ["$lte": argument]
            case 5: ["$ne": argument]
            case 6: ["$in": [argument, value(&rng)]]
            case 7: ["$exists": .bool(Bool.random(using: &rng))]
            case 8: ["$beginsWith": .string(strings.randomElement(using: &rng) ?? "a")]
            case 9: ["$type": .string(["null", "boolean", "number", "string", "array", "object"].randomElement(using: &rng) ?? "null")]
            case 10: ["$gt": argument, "$lt": value(&rng)]
            default: ["$nin": [argument]]
            }
        return .object(JSONObject([(field, condition)]))
    }

    static func selector(_ rng: inout some RandomNumberGenerator) -> JSONValue {
        let parts = (0..<Int.random(in: 1...3, using: &rng)).map { _ in condition(&rng) }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return ["$or": .array(parts)]
        case 1: return ["$and": [parts[0], ["$or": .array(parts)]]]
        default: return ["$and": .array(parts)]
        }
    }

    /// The reference: every live document the selector matches, in the order `sort` (or `_id`) gives.
    static func reference(_ documents: [JSONObject], selector: MangoSelector, sort: [SortField]) -> [String] {
        let order = sort.isEmpty ? [SortField(FieldPath(["_id"]))] : sort
        let matches = documents.filter(selector.matches).compactMap { document -> (JSONObject, [JSONValue])? in
            var keys: [JSONValue] = []
            for field in order {
                guard case .found(let value) = field.path.lookup(in: .object(document)) else { return nil }
                keys.append(value)
            }
            return (document, keys)
        }
        let descending = order[0].descending
        return matches.sorted { lhs, rhs in
            for index in order.indices {
                let comparison = Collation.compare(lhs.1[index], rhs.1[index])
                if comparison != 0 { return descending ? comparison > 0 : comparison < 0 }
            }
            let byID = Collation.compareBytes(lhs.0["_id"]?.stringValue ?? "", rhs.0["_id"]?.stringValue ?? "")
            return descending ? byID > 0 : byID < 0
        }.compactMap { $0.0["_id"]?.stringValue }
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func indexedAndInMemoryEvaluationAgreeOnRandomSelectors(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let temp = try TemporaryStore()
        let documents: [JSONObject] = (0..<150).map { number in
            var document: JSONObject = ["_id": .string("doc\(number)")]
            for field in ["a", "b", "c"] where Int.random(in: 0..<5, using: &rng) > 0 {
                document[field] = Self.value(&rng)
            }
            return document
        }
        _ = try await temp.store.bulkDocs(documents.map(JSONValue.object))
        try await temp.store.createIndex(IndexDefinition(name: "ia", fields: [.ascending("a")]))
        try await temp.store.createIndex(IndexDefinition(name: "iba", fields: [.ascending("b"), .ascending("a")]))
        try await temp.store.createIndex(IndexDefinition(name: "ic", fields: [.descending("c")]))
        // Edits and deletions after the indexes exist: their old entries must go.
        for number in 0..<40 {
            let id = "doc\(Int.random(in: 0..<150, using: &rng))"
            guard let current = try? await temp.store.document(id: id), let rev = current.rev else { continue }
            if number % 4 == 0 {
                try await temp.store.delete(id: id, rev: rev)
            } else {
                var edited: JSONObject = ["_id": .string(id), "_rev": .string(rev)]
                for field in ["a", "b", "c"] where Bool.random(using: &rng) { edited[field] = Self.value(&rng) }
                try await temp.store.put(edited)
            }
        }
        let stored = try await temp.store.allDocs(AllDocsOptions(includeDocs: true)).rows.compactMap { $0["doc"]?.objectValue }
            .filter { !($0["_id"]?.stringValue ?? "").hasPrefix("_design/") }

        for _ in 0..<60 {
            let json = Self.selector(&rng)
            let selector = try MangoSelector(json)
            let sortChoices: [[SortField]] = [
                [], [SortField(FieldPath(["a"]))], [SortField(FieldPath(["b"])), SortField(FieldPath(["a"]))],
                [SortField(FieldPath(["c"]), descending: true)],
            ]
            let sort = sortChoices.randomElement(using: &rng) ?? []
            let expected = Self.reference(stored, selector: selector, sort: sort)
            for useIndex in [nil, ["ia"], ["iba"], ["ic"]] as [[String]?] {
                let request = FindRequest(selector: selector, sort: sort, limit: 10_000, useIndex: useIndex)
                let found = try await temp.store.find(request).docs.compactMap { $0["_id"]?.stringValue }
                let label = "\(json.jsonString()) sort \(sort.map(\.json)) use_index \(useIndex ?? [])"
                if sort.isEmpty {
                    #expect(found.sorted() == expected.sorted(), "\(label)")  // index order differs from _id order
                } else {
                    #expect(found == expected, "\(label)")
                }
                // Paging with bookmarks returns the same sequence.
                var paged: [String] = []
                var page = FindRequest(selector: selector, sort: sort, limit: 7, useIndex: useIndex)
                while true {
                    let result = try await temp.store.find(page)
                    if result.docs.isEmpty { break }
                    paged += result.docs.compactMap { $0["_id"]?.stringValue }
                    page.bookmark = result.bookmark
                }
                #expect(paged == found, "paged: \(label)")
            }
        }
    }
}
