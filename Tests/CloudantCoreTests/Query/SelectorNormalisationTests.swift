import CloudantCore
import Testing

/// Parses a selector from JSON text.
func selector(_ text: String) throws -> MangoSelector { try MangoSelector(queryJSON(text)) }

/// The normalised JSON of a selector written as JSON text.
func normalised(_ text: String) throws -> String { try selector(text).json.jsonString() }

@Suite("MangoSelector normalisation")
struct SelectorNormalisationTests {
    @Test func bareValueIsImplicitEq() throws {
        #expect(try normalised(#"{"a":1}"#) == #"{"a":{"$eq":1}}"#)
    }

    @Test func severalMembersAreImplicitAnd() throws {
        #expect(try normalised(#"{"a":1,"b":2}"#) == #"{"$and":[{"a":{"$eq":1}},{"b":{"$eq":2}}]}"#)
        #expect(try normalised(#"{"a":{"$gt":1,"$lt":5}}"#) == #"{"$and":[{"a":{"$gt":1}},{"a":{"$lt":5}}]}"#)
    }

    @Test func anAndInsideAnAndIsSplicedSoBothBoundsOfARangeSitBesideTheOtherConditions() throws {
        #expect(try normalised(#"{"k":"x","a":{"$gte":1,"$lt":5}}"#)
            == #"{"$and":[{"k":{"$eq":"x"}},{"a":{"$gte":1}},{"a":{"$lt":5}}]}"#)
        #expect(try normalised(#"{"$and":[{"$and":[{"a":1},{"$and":[]}]},{"b":2}]}"#)
            == #"{"$and":[{"a":{"$eq":1}},{"b":{"$eq":2}}]}"#)
        #expect(try normalised(#"{"$nor":[{"$or":[{"a":1},{"b":2}]}]}"#)
            == #"{"$and":[{"a":{"$ne":1}},{"b":{"$ne":2}}]}"#)
        // An empty $or inside an $or is not spliced: `{"$or":[]}` matches, so dropping it would change the answer.
        #expect(try normalised(#"{"$or":[{"a":1},{"$or":[]}]}"#) == #"{"$or":[{"a":{"$eq":1}},{"$or":[]}]}"#)
    }

    @Test func nestedObjectIsASubFieldPath() throws {
        #expect(try normalised(#"{"imdb":{"rating":8}}"#) == #"{"imdb.rating":{"$eq":8}}"#)
        #expect(try normalised(#"{"a":{"$eq":{"b":1}}}"#) == #"{"a":{"$eq":{"b":1}}}"#)
        #expect(try normalised(#"{"a":{}}"#) == #"{"a":{"$eq":{}}}"#)
    }

    @Test func fieldNamesArePushedDownThroughCombinators() throws {
        #expect(try normalised(#"{"a":{"$or":[{"$lt":0},{"b":1}]}}"#) == #"{"$or":[{"a":{"$lt":0}},{"a.b":{"$eq":1}}]}"#)
    }

    @Test func negationsArePushedToTheLeaves() throws {
        let cases: [(String, String)] = [
            (#"{"a":{"$not":{"$lt":1}}}"#, #"{"a":{"$gte":1}}"#),
            (#"{"a":{"$not":{"$lte":1}}}"#, #"{"a":{"$gt":1}}"#),
            (#"{"a":{"$not":{"$gt":1}}}"#, #"{"a":{"$lte":1}}"#),
            (#"{"a":{"$not":{"$gte":1}}}"#, #"{"a":{"$lt":1}}"#),
            (#"{"$not":{"a":1}}"#, #"{"a":{"$ne":1}}"#),
            (#"{"a":{"$not":{"$ne":1}}}"#, #"{"a":{"$eq":1}}"#),
            (#"{"a":{"$not":{"$in":[1]}}}"#, #"{"a":{"$nin":[1]}}"#),
            (#"{"a":{"$not":{"$nin":[1]}}}"#, #"{"a":{"$in":[1]}}"#),
            (#"{"$not":{"a":{"$exists":true}}}"#, #"{"a":{"$exists":false}}"#),
            (#"{"a":{"$not":{"$regex":"x"}}}"#, #"{"a":{"$not":{"$regex":"x"}}}"#),
            (#"{"$not":{"a":{"$size":2}}}"#, #"{"a":{"$not":{"$size":2}}}"#),
        ]
        for (input, expected) in cases { #expect(try normalised(input) == expected, "\(input)") }
    }

    @Test func deMorganSwapsAndOrAndNorBecomesAndOfNegations() throws {
        #expect(try normalised(#"{"$not":{"$and":[{"a":1},{"b":{"$gt":2}}]}}"#) == #"{"$or":[{"a":{"$ne":1}},{"b":{"$lte":2}}]}"#)
        #expect(try normalised(#"{"$not":{"$or":[{"a":1},{"b":2}]}}"#) == #"{"$and":[{"a":{"$ne":1}},{"b":{"$ne":2}}]}"#)
        #expect(try normalised(#"{"$nor":[{"a":1},{"b":{"$lt":2}}]}"#) == #"{"$and":[{"a":{"$ne":1}},{"b":{"$gte":2}}]}"#)
        #expect(try normalised(#"{"$not":{"$nor":[{"a":1}]}}"#) == #"{"$or":[{"a":{"$eq":1}}]}"#)
    }

    @Test func doubleNegationCancels() throws {
        #expect(try normalised(#"{"$not":{"$not":{"a":{"$gt":1}}}}"#) == #"{"a":{"$gt":1}}"#)
        #expect(try normalised(#"{"a":{"$not":{"$not":{"$regex":"x"}}}}"#) == #"{"a":{"$regex":"x"}}"#)
    }

    /// A condition on the element itself is named by the empty field, as `mango_selector:norm_fields/2`
    /// writes it (and `_explain` shows it); that form parses back to the same selector.
    @Test func elemMatchArgumentIsNormalisedOnItsOwn() throws {
        let normalisedForm = #"{"s":{"$elemMatch":{"$and":[{"":{"$gte":80}},{"":{"$lt":85}}]}}}"#
        #expect(try normalised(#"{"s":{"$elemMatch":{"$gte":80,"$lt":85}}}"#) == normalisedForm)
        #expect(try normalised(normalisedForm) == normalisedForm)
        #expect(try normalised(#"{"a":{"$elemMatch":{"$gt":1}}}"#) == #"{"a":{"$elemMatch":{"":{"$gt":1}}}}"#)
        #expect(try normalised(#"{"$or":[{"s":"x"},{"$eq":1}]}"#) == #"{"$or":[{"s":{"$eq":"x"}},{"":{"$eq":1}}]}"#)
        #expect(try normalised(#"{"s":{"$not":{"$elemMatch":{"n":"x"}}}}"#) == #"{"s":{"$not":{"$elemMatch":{"n":{"$eq":"x"}}}}}"#)
    }

    @Test func fieldPathsSplitOnUnescapedDots() throws {
        #expect(try FieldPath(parsing: "a.b.c").segments == ["a", "b", "c"])
        #expect(try FieldPath(parsing: #"a\.b.c"#).segments == ["a.b", "c"])
        #expect(try FieldPath(parsing: #"\$ref"#).segments == ["$ref"])
        #expect(FieldPath(["a.b", "$ref"]).description == #"a\.b.\$ref"#)
        #expect(try normalised(#"{"\\$ref":1}"#) == #"{"\\$ref":{"$eq":1}}"#)
    }

    @Test func normalisedJSONReadsBackToTheSameSelector() throws {
        let inputs = [
            #"{"a":{"$not":{"$regex":"^x"}},"b.c":{"$in":[1,2]},"d":{"$elemMatch":{"$gt":1}}}"#,
            #"{"$nor":[{"a":{"$allMatch":{"b":1}}},{"c":{"$keyMapMatch":{"$eq":"k"}}}],"$text":"x"}"#,
            #"{"a\\.b":{"$mod":[3,1]},"e":{"$all":[[1,2]]},"f":{"$size":0},"g":{"$type":"null"}}"#,
            "{}",
        ]
        for input in inputs {
            let parsed = try selector(input)
            #expect(try MangoSelector(parsed.json) == parsed, "\(input)")
        }
    }

    @Test func equalityIsExactAboutMemberOrderAndNumberSpelling() throws {
        #expect(try selector(#"{"a":1}"#) == selector(#"{"a":{"$eq":1}}"#))
        #expect(try selector(#"{"a":1}"#) != selector(#"{"a":1.0}"#))
        #expect(try selector(#"{"a":{"$eq":{"x":1,"y":2}}}"#) != selector(#"{"a":{"$eq":{"y":2,"x":1}}}"#))
    }

    @Test func textIsParsedAndKeptForTheTextEngine() throws {
        let parsed = try selector(#"{"$text":"walk","a":1}"#)
        #expect(parsed.textSearch == "walk")
        #expect(parsed.matches(["a": 1]))
    }

    @Test func topLevelEmptyAndOrIsFlagged() throws {
        #expect(try selector(#"{"$or":[]}"#).isTopLevelEmptyAndOr)
        #expect(try selector(#"{"$and":[]}"#).isTopLevelEmptyAndOr)
        #expect(try selector(#"{"$nor":[]}"#).isTopLevelEmptyAndOr)
        #expect(try !selector("{}").isTopLevelEmptyAndOr)
        #expect(try !selector(#"{"age":22,"$or":[]}"#).isTopLevelEmptyAndOr)
        // Inside a larger selector `$or: []` is vacuously true.
        #expect(try selector(#"{"age":22,"$or":[]}"#).matches(["age": 22]))
    }
}
