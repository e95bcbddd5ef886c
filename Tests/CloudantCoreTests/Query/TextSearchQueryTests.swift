import CloudantCore
import Testing

@Suite("Lucene query syntax to FTS5")
struct TextSearchQueryTests {
    @Test(arguments: [
        ("doctor", #""doctor""#),
        ("doctor books", #"("doctor" OR "books")"#),
        ("doctor AND books", #""doctor" AND "books""#),
        ("doctor && books", #""doctor" AND "books""#),
        ("+doctor books", #""doctor""#),  // an optional term beside a required one only ranks (Lucene SHOULD)
        ("doctor -books", #"("doctor") NOT ("books")"#),
        ("doctor NOT books", #"("doctor") NOT ("books")"#),
        (#""reading list""#, #""reading list""#),
        ("walk*", #""walk" *"#),
        ("title:doctor", #"c0 : "doctor""#),
        ("(walk OR run) AND doctor", #"(("walk" OR "run")) AND "doctor""#),
        (#"say "hi" there"#, #"("say" OR "hi" OR "there")"#),
    ])
    func translatesTheLuceneSubset(pair: (String, String)) throws {
        #expect(try TextSearchQuery.ftsMatch(.string(pair.0), fields: ["title"]) == pair.1)
    }

    @Test func userTextIsAlwaysQuotedSoItCannotInjectFTSSyntax() throws {
        #expect(try TextSearchQuery.ftsMatch(#"NEAR x\"y"#, fields: []) == #"("NEAR" OR "x""y")"#)
    }

    @Test(arguments: ["doctr~", "doctor^2", "[a TO b]", "te?t", "title:", "-only", "(unclosed", "\"open", "mood:4"])
    func unsupportedOrMalformedSyntaxIsABadArgument(text: String) {
        let error = #expect(throws: CloudantError.self) { try TextSearchQuery.ftsMatch(.string(text), fields: ["title"]) }
        #expect(error?.queryErrorKind == .badArg, "\(text)")
    }

    @Test func numbersBooleansAndCDTDatastoresSearchObjectAreAccepted() throws {
        #expect(try TextSearchQuery.ftsMatch(42, fields: []) == #""42""#)
        #expect(try TextSearchQuery.ftsMatch(["$search": "sleep"], fields: []) == #""sleep""#)
    }
}
