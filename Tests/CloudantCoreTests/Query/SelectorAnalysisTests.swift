@testable import CloudantCore
import Testing

@Suite("What the planner reads from a selector")
struct SelectorAnalysisTests {
    /// Selectors covering every node kind: `$and` inside `$or` inside `$and`, `$exists: false`, empty `$or`.
    static let selectors: [JSONValue] = [
        [:],
        ["a": 1],
        ["a": ["$exists": false]],
        ["a": ["$exists": true], "b": ["$gt": 2]],
        ["$or": [["a": 1], ["a": 2, "b": 3]]],
        ["$or": [["a": 1], ["b": ["$exists": false]]]],
        ["$or": []],
        ["c": 1, "$or": [["a": 1, "$or": [["b": 1], ["b": 2, "d": 4]]], ["a": 2, "b": 5]]],
        ["$nor": [["a": 1]], "e.f": ["$lt": 3]],
        ["$and": [["a": ["$in": [1, 2]]], ["$or": [["x.y": 1], ["x.y": 2]]]]],
        ["$text": "hello"],
    ]
    static let fieldLists: [[String]] = [[], ["a"], ["b"], ["a", "b"], ["c", "d"], ["e.f"], ["x.y", "a"], ["z"]]

    @Test("The required fields computed once agree with hasRequiredFields for every field list")
    func requiredFieldsAgreeWithHasRequiredFields() throws {
        for selector in Self.selectors {
            let root = try MangoSelector(selector).root
            let required = SelectorAnalysis.requiredFields(root)
            for fields in Self.fieldLists {
                #expect(
                    fields.allSatisfy(required.contains) == SelectorAnalysis.hasRequiredFields(root, fields),
                    "selector \(selector), fields \(fields)")
            }
        }
    }

    @Test("An $or with no branch requires every field; $exists: false requires none")
    func emptyOrRequiresEverythingAndExistsFalseNothing() throws {
        #expect(SelectorAnalysis.requiredFields(try MangoSelector(["$or": []]).root).contains("anything"))
        #expect(!SelectorAnalysis.requiredFields(try MangoSelector(["a": ["$exists": false]]).root).contains("a"))
    }
}
