import CloudantCore
import Testing

/// One matcher expectation: a selector, a document, and whether it matches.
struct MatchCase: CustomTestStringConvertible, Sendable {
    let selector: String
    let document: String
    let matches: Bool
    var testDescription: String { "\(selector) \(matches ? "matches" : "rejects") \(document)" }
}

private func yes(_ selector: String, _ document: String) -> MatchCase { MatchCase(selector: selector, document: document, matches: true) }
private func no(_ selector: String, _ document: String) -> MatchCase { MatchCase(selector: selector, document: document, matches: false) }

@Suite("MangoSelector matching")
struct SelectorMatchingTests {
    static let comparisons: [MatchCase] = [
        yes(#"{"a":1}"#, #"{"a":1.0}"#), no(#"{"a":1}"#, #"{"a":"1"}"#), no(#"{"a":1}"#, #"{}"#),
        yes(#"{"a":{"$eq":[1,2]}}"#, #"{"a":[1,2]}"#), no(#"{"a":{"$eq":1}}"#, #"{"a":[1,2]}"#),
        yes(#"{"a":{"$eq":{"x":1,"y":2}}}"#, #"{"a":{"x":1,"y":2}}"#),
        no(#"{"a":{"$eq":{"x":1,"y":2}}}"#, #"{"a":{"y":2,"x":1}}"#),
        yes(#"{"a":{"$ne":"x"}}"#, #"{"a":null}"#), no(#"{"a":{"$ne":"x"}}"#, #"{}"#), no(#"{"a":{"$ne":1}}"#, #"{"a":1}"#),
        yes(#"{"a":{"$lt":1}}"#, #"{"a":null}"#), yes(#"{"a":{"$lt":1}}"#, #"{"a":true}"#), no(#"{"a":{"$lt":1}}"#, #"{"a":"0"}"#),
        yes(#"{"a":{"$lte":1}}"#, #"{"a":1}"#), no(#"{"a":{"$lte":1}}"#, #"{"a":2}"#), no(#"{"a":{"$lte":1}}"#, #"{}"#),
        yes(#"{"a":{"$gt":5}}"#, #"{"a":"s"}"#), yes(#"{"a":{"$gt":5}}"#, #"{"a":{}}"#), no(#"{"a":{"$gt":5}}"#, #"{"a":5}"#),
        yes(#"{"a":{"$gte":null}}"#, #"{"a":null}"#), yes(#"{"a":{"$gte":null}}"#, #"{"a":[]}"#), no(#"{"a":{"$gte":null}}"#, #"{}"#),
        yes(#"{"a":{"$gt":"a"}}"#, #"{"a":"A"}"#), no(#"{"a":{"$gt":"A"}}"#, #"{"a":"a"}"#),
        yes(#"{"_id":{"$gt":"Z"}}"#, #"{"_id":"a"}"#), no(#"{"_id":{"$gt":"a"}}"#, #"{"_id":"B"}"#),
        yes(#"{"k":{"$gt":"a"}}"#, #"{"k":"B"}"#),
    ]

    static let presenceAndType: [MatchCase] = [
        yes(#"{"a":{"$exists":true}}"#, #"{"a":null}"#), no(#"{"a":{"$exists":true}}"#, #"{}"#),
        yes(#"{"a":{"$exists":false}}"#, #"{}"#), no(#"{"a":{"$exists":false}}"#, #"{"a":null}"#),
        yes(#"{"a.b":{"$exists":false}}"#, #"{"a":{}}"#), no(#"{"a.b":{"$exists":false}}"#, #"{"a":5}"#),
        yes(#"{"a":{"$type":"null"}}"#, #"{"a":null}"#), yes(#"{"a":{"$type":"boolean"}}"#, #"{"a":false}"#),
        yes(#"{"a":{"$type":"number"}}"#, #"{"a":1.5}"#), yes(#"{"a":{"$type":"string"}}"#, #"{"a":""}"#),
        yes(#"{"a":{"$type":"array"}}"#, #"{"a":[]}"#), yes(#"{"a":{"$type":"object"}}"#, #"{"a":{}}"#),
        no(#"{"a":{"$type":"string"}}"#, #"{"a":1}"#), no(#"{"a":{"$type":"int"}}"#, #"{"a":1}"#),
        no(#"{"a":{"$type":"null"}}"#, #"{}"#),
    ]

    static let sets: [MatchCase] = [
        yes(#"{"a":{"$in":[1,2]}}"#, #"{"a":2}"#), no(#"{"a":{"$in":[1,2]}}"#, #"{"a":3}"#),
        yes(#"{"a":{"$in":[1,2]}}"#, #"{"a":[5,2]}"#), no(#"{"a":{"$in":[1,2]}}"#, #"{"a":[5,6]}"#),
        no(#"{"a":{"$in":[]}}"#, #"{"a":1}"#), no(#"{"a":{"$in":[1]}}"#, #"{}"#),
        yes(#"{"a":{"$nin":[1,2]}}"#, #"{"a":3}"#), no(#"{"a":{"$nin":[1,2]}}"#, #"{"a":1}"#),
        no(#"{"a":{"$nin":[1,2]}}"#, #"{"a":[3,1]}"#), yes(#"{"a":{"$nin":[]}}"#, #"{"a":1}"#),
        no(#"{"a":{"$nin":[1]}}"#, #"{}"#),
        yes(#"{"a":{"$all":[1,2]}}"#, #"{"a":[2,3,1]}"#), no(#"{"a":{"$all":[1,2]}}"#, #"{"a":[1,3]}"#),
        no(#"{"a":{"$all":[1]}}"#, #"{"a":[1.0]}"#), no(#"{"a":{"$all":[]}}"#, #"{"a":[]}"#),
        no(#"{"a":{"$all":[1]}}"#, #"{"a":1}"#), yes(#"{"a":{"$all":[[1,2]]}}"#, #"{"a":[1,2]}"#),
        yes(#"{"a":{"$all":[[1,2]]}}"#, #"{"a":[[1,2],3]}"#), no(#"{"a":{"$all":[1]}}"#, #"{}"#),
        yes(#"{"a":{"$size":2}}"#, #"{"a":[1,[]]}"#), no(#"{"a":{"$size":2}}"#, #"{"a":[1]}"#),
        no(#"{"a":{"$size":1}}"#, #"{"a":"x"}"#), no(#"{"a":{"$size":0}}"#, #"{}"#),
    ]

    static let scalars: [MatchCase] = [
        yes(#"{"a":{"$mod":[3,1]}}"#, #"{"a":7}"#), no(#"{"a":{"$mod":[3,1]}}"#, #"{"a":8}"#),
        no(#"{"a":{"$mod":[2,0]}}"#, #"{"a":4.0}"#), no(#"{"a":{"$mod":[2,0]}}"#, #"{"a":"4"}"#),
        yes(#"{"a":{"$mod":[3,-1]}}"#, #"{"a":-7}"#), no(#"{"a":{"$mod":[3,2]}}"#, #"{"a":-7}"#),
        yes(#"{"a":{"$mod":[-3,1]}}"#, #"{"a":7}"#), yes(#"{"a":{"$mod":[-1,0]}}"#, #"{"a":-9223372036854775808}"#),
        no(#"{"a":{"$mod":[3,1]}}"#, #"{}"#),
        yes(#"{"a":{"$regex":"b+c"}}"#, #"{"a":"abbcd"}"#), no(#"{"a":{"$regex":"^b"}}"#, #"{"a":"abc"}"#),
        yes(#"{"a":{"$regex":"(?i)^AB"}}"#, #"{"a":"abc"}"#), no(#"{"a":{"$regex":"1"}}"#, #"{"a":1}"#),
        no(#"{"a":{"$regex":"x"}}"#, #"{}"#),
        yes(#"{"a":{"$beginsWith":"ab"}}"#, #"{"a":"abc"}"#), no(#"{"a":{"$beginsWith":"Ab"}}"#, #"{"a":"abc"}"#),
        no(#"{"a":{"$beginsWith":"e"}}"#, #"{"a":"\u00e9"}"#), no(#"{"a":{"$beginsWith":"a"}}"#, #"{"a":["a"]}"#),
        no(#"{"a":{"$beginsWith":""}}"#, #"{}"#), yes(#"{"a":{"$beginsWith":""}}"#, #"{"a":""}"#),
    ]

    static let nested: [MatchCase] = [
        yes(#"{"s":{"$elemMatch":{"$gte":80,"$lt":85}}}"#, #"{"s":[70,82]}"#),
        no(#"{"s":{"$elemMatch":{"$gte":80,"$lt":85}}}"#, #"{"s":[70,90]}"#),
        yes(#"{"s":{"$elemMatch":{"n":"x"}}}"#, #"{"s":[{"n":"y"},{"n":"x"}]}"#),
        no(#"{"s":{"$elemMatch":{"n":"x"}}}"#, #"{"s":{"n":"x"}}"#), no(#"{"s":{"$elemMatch":{}}}"#, #"{"s":[]}"#),
        yes(#"{"s":{"$allMatch":{"$gt":1}}}"#, #"{"s":[2,3]}"#), no(#"{"s":{"$allMatch":{"$gt":1}}}"#, #"{"s":[2,1]}"#),
        no(#"{"s":{"$allMatch":{"$gt":1}}}"#, #"{"s":[]}"#), no(#"{"s":{"$allMatch":{"$gt":1}}}"#, #"{"s":5}"#),
        yes(#"{"m":{"$keyMapMatch":{"$eq":"k"}}}"#, #"{"m":{"j":1,"k":2}}"#),
        no(#"{"m":{"$keyMapMatch":{"$eq":"k"}}}"#, #"{"m":{"j":"k"}}"#), no(#"{"m":{"$keyMapMatch":{"$eq":"k"}}}"#, #"{"m":["k"]}"#),
        yes(#"{"a.b":1}"#, #"{"a":{"b":1}}"#), yes(#"{"tags.1":"b"}"#, #"{"tags":["a","b"]}"#),
        no(#"{"tags.2":{"$exists":false}}"#, #"{"tags":["a","b"]}"#), no(#"{"tags.x":"b"}"#, #"{"tags":["a","b"]}"#),
        yes(#"{"a\\.b":1}"#, #"{"a.b":1}"#), yes(#"{"\\$ref":1}"#, #"{"$ref":1}"#),
        yes(#"{"a.1.b":2}"#, #"{"a":[{"b":1},{"b":2}]}"#),
    ]

    static let logic: [MatchCase] = [
        yes(#"{"$and":[{"a":1},{"b":2}]}"#, #"{"a":1,"b":2}"#), no(#"{"$and":[{"a":1},{"b":2}]}"#, #"{"a":1}"#),
        yes(#"{"$or":[{"a":1},{"b":2}]}"#, #"{"b":2}"#), no(#"{"$or":[{"a":1},{"b":2}]}"#, #"{"c":1}"#),
        yes(#"{"$nor":[{"a":1},{"b":2}]}"#, #"{"a":2,"b":1}"#), no(#"{"$nor":[{"a":1},{"b":2}]}"#, #"{"a":1,"b":1}"#),
        no(#"{"$nor":[{"a":1}]}"#, #"{}"#), yes(#"{"$not":{"a":{"$exists":true}}}"#, #"{}"#),
        yes(#"{"a":{"$not":{"$regex":"^x"}}}"#, #"{"a":"y"}"#), no(#"{"a":{"$not":{"$regex":"^x"}}}"#, #"{"a":"x"}"#),
        no(#"{"a":{"$not":{"$regex":"^x"}}}"#, #"{}"#), yes(#"{}"#, #"{"a":1}"#), yes(#"{"$and":[]}"#, #"{}"#),
    ]

    @Test(arguments: comparisons + presenceAndType)
    func comparisonsAndPresence(example: MatchCase) throws { try check(example) }

    @Test(arguments: sets + scalars)
    func setsAndScalarOperators(example: MatchCase) throws { try check(example) }

    @Test(arguments: nested + logic)
    func nestedPathsAndLogic(example: MatchCase) throws { try check(example) }

    private func check(_ example: MatchCase) throws {
        let document = try #require(try queryJSON(example.document).objectValue)
        #expect(try selector(example.selector).matches(document) == example.matches)
    }
}
