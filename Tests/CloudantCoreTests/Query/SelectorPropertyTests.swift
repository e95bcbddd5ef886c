import CloudantCore
import PropertyBased
import Testing

@Suite("MangoSelector laws")
struct SelectorPropertyTests {
    /// Random field conditions on `a`, `b` or `c`; every operator with a non-empty argument.
    static func randomCondition(using rng: inout some RandomNumberGenerator) -> JSONValue {
        let field = ["a", "b", "c"].randomElement(using: &rng) ?? "a"
        let condition: JSONValue =
            switch Int.random(in: 0..<14, using: &rng) {
            case 0: ["$eq": QueryGen.randomValue(depth: 1, using: &rng)]
            case 1: ["$ne": QueryGen.randomValue(depth: 1, using: &rng)]
            case 2: ["$lt": QueryGen.randomValue(depth: 1, using: &rng)]
            case 3: ["$lte": QueryGen.randomValue(depth: 1, using: &rng)]
            case 4: ["$gt": QueryGen.randomValue(depth: 1, using: &rng)]
            case 5: ["$gte": QueryGen.randomValue(depth: 1, using: &rng)]
            case 6: ["$in": [QueryGen.randomValue(depth: 1, using: &rng), QueryGen.randomValue(depth: 1, using: &rng)]]
            case 7: ["$nin": [QueryGen.randomValue(depth: 1, using: &rng)]]
            case 8: ["$type": ["string", "number", "array"].randomElement(using: &rng) ?? "null"]
            case 9: ["$size": .number(JSONNumber(Int.random(in: 0...2, using: &rng)))]
            case 10: ["$mod": [2, .number(JSONNumber(Int.random(in: 0...1, using: &rng)))]]
            case 11: ["$regex": "^a"]
            case 12: ["$elemMatch": ["$gt": QueryGen.randomValue(depth: 1, using: &rng)]]
            default: ["$all": [QueryGen.randomValue(depth: 1, using: &rng)]]
            }
        return .object(JSONObject([(field, condition)]))
    }

    /// A random selector tree over non-empty `$and`/`$or`/`$nor`/`$not`.
    static func randomSelector(depth: Int, using rng: inout some RandomNumberGenerator) -> JSONValue {
        guard depth < 3, Int.random(in: 0..<3, using: &rng) > 0 else { return randomCondition(using: &rng) }
        let children = (0..<Int.random(in: 1...3, using: &rng)).map { _ in randomSelector(depth: depth + 1, using: &rng) }
        switch Int.random(in: 0..<4, using: &rng) {
        case 0: return ["$and": .array(children)]
        case 1: return ["$or": .array(children)]
        case 2: return ["$nor": .array(children)]
        default: return ["$not": children[0]]
        }
    }

    static let selectors = Generator { rng in randomSelector(depth: 0, using: &rng) }

    /// Documents where `a`, `b` and `c` are all present.
    static let documents = Generator { rng in
        JSONObject(["a", "b", "c"].map { ($0, QueryGen.randomValue(depth: 0, using: &rng)) })
    }

    @Test func notMatchesExactlyTheDocumentsTheSelectorDoesNot() async {
        await propertyCheck(input: Self.selectors, Self.documents) { json, document in
            let positive = try MangoSelector(json)
            let negative = try MangoSelector(["$not": json])
            #expect(negative.matches(document) == !positive.matches(document), "\(json.jsonString())")
        }
    }

    @Test func normalisedJSONMatchesLikeTheOriginal() async {
        await propertyCheck(input: Self.selectors, Self.documents) { json, document in
            let parsed = try MangoSelector(json)
            let reparsed = try MangoSelector(parsed.json)
            #expect(reparsed == parsed)
            #expect(reparsed.matches(document) == parsed.matches(document))
        }
    }
}
