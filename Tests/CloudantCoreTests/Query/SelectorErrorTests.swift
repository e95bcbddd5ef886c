import CloudantCore
import Testing

@Suite("MangoSelector errors")
struct SelectorErrorTests {
    /// The CouchDB error name and context field an invalid selector gives.
    func failure(_ text: String) throws -> (kind: QueryErrorKind?, field: String?, message: String) {
        let json = try queryJSON(text)
        do {
            _ = try MangoSelector(json)
        } catch {
            #expect(error.code == .invalidInput)
            return (error.queryErrorKind, error.context.field, error.message)
        }
        Issue.record("\(text) was accepted")
        return (nil, nil, "")
    }

    @Test(arguments: [
        #"{"a":{"$in":1}}"#, #"{"a":{"$nin":"x"}}"#, #"{"a":{"$all":{}}}"#, #"{"a":{"$size":-1}}"#,
        #"{"a":{"$size":1.5}}"#, #"{"a":{"$mod":[0,1]}}"#, #"{"a":{"$mod":[2]}}"#, #"{"a":{"$mod":[2.0,1]}}"#,
        #"{"a":{"$exists":1}}"#, #"{"a":{"$type":3}}"#, #"{"$and":{}}"#, #"{"$or":1}"#, #"{"$nor":"x"}"#,
        #"{"$not":[]}"#, #"{"a":{"$elemMatch":[]}}"#, #"{"a":{"$allMatch":1}}"#, #"{"a":{"$keyMapMatch":"k"}}"#,
        #"{"a":{"$regex":"("}}"#, #"{"$text":[]}"#, #"{"a":{"$text":"x"}}"#, #"{"$not":{"$text":"x"}}"#,
        #"{"$not":{}}"#,
    ])
    func badArgumentsAreBadArg(text: String) throws {
        let result = try failure(text)
        #expect(result.kind == .badArg, "\(text): \(result.message)")
    }

    @Test func badArgumentMessageNamesOperatorAndPathButNotTheValue() throws {
        let result = try failure(#"{"person":{"name":{"$in":"Alice Example"}}}"#)
        #expect(result.field == "person.name")
        #expect(result.message.contains("$in"))
        #expect(result.message.contains("person.name"))
        #expect(result.message.contains("expected an array"))
        #expect(!result.message.contains("Alice"))
    }

    @Test func unknownOperatorIsInvalidOperator() throws {
        let result = try failure(#"{"a":{"$foo":1}}"#)
        #expect(result.kind == .invalidOperator)
        #expect(result.message.hasPrefix("Invalid operator: $foo"))
    }

    @Test func nonStringRegexOrBeginsWithIsInvalidOperatorAsInCouchDBO11() throws {
        #expect(try failure(#"{"a":{"$regex":5}}"#).kind == .invalidOperator)
        #expect(try failure(#"{"a":{"$beginsWith":3}}"#).kind == .invalidOperator)
    }

    @Test(arguments: ["$where", "$geoWithin", "$geoIntersects", "$near", "$nearSphere"])
    func unsupportedOperatorsAreNotSupported(name: String) throws {
        let result = try failure(#"{"a":{"\#(name)":1}}"#)
        #expect(result.kind == .notSupported)
        #expect(result.field == name)
    }

    /// `mango_selector:normalize/1` looks for the empty field among the top-level names only.
    @Test func missingFieldNameIsInvalidSelectorAtTheTopLevel() throws {
        #expect(try failure(#"{"":1}"#).kind == .invalidSelector)
        #expect(try failure(#"{"$gt":1}"#).kind == .invalidSelector)
        #expect(try failure(#"{"a":1,"$eq":1}"#).kind == .invalidSelector)
    }

    /// Inside `$and`, `$or`, `$nor` or `$not`, a condition without a field applies to the whole document, as
    /// CouchDB's `match({[{<<>>, Cond}]}, Doc, _)` applies it: `$eq` never holds for an object, `$exists` does.
    @Test func aConditionWithoutAFieldInsideACombinationAppliesToTheDocument() throws {
        let document: JSONObject = ["s": "x"]
        #expect(try MangoSelector(queryJSON(#"{"$or":[{"s":"x"},{"$eq":1}]}"#)).matches(document))
        #expect(try !MangoSelector(queryJSON(#"{"$and":[{"$eq":1}]}"#)).matches(document))
        #expect(try !MangoSelector(queryJSON(#"{"$or":[5]}"#)).matches(document))
        #expect(try MangoSelector(queryJSON(#"{"$and":[{"$exists":true},{"s":"x"}]}"#)).matches(document))
        #expect(try MangoSelector(queryJSON(#"{"$not":{"$eq":1}}"#)).matches(document))
        #expect(try MangoSelector(queryJSON(#"{"$nor":[{"$type":"string"}]}"#)).matches(document))
    }

    @Test func emptyPathSegmentIsInvalidFieldName() throws {
        for text in [#"{"a..b":1}"#, #"{"a.":1}"#, #"{".a":1}"#] {
            let result = try failure(text)
            #expect(result.kind == .invalidFieldName, "\(text)")
        }
    }

    @Test func nonObjectSelectorIsInvalidSelectorJSON() throws {
        #expect(try failure("[]").kind == .invalidSelectorJSON)
        #expect(try failure(#""a""#).kind == .invalidSelectorJSON)
    }

    @Test func twoTextSearchesAreMultipleTextSelector() throws {
        #expect(try failure(#"{"$and":[{"$text":"a"},{"$text":"b"}]}"#).kind == .multipleTextSelector)
    }

    @Test func errorsOutsideQueriesHaveNoQueryKind() {
        #expect(CloudantError(.invalidInput, "x").queryErrorKind == nil)
    }
}
