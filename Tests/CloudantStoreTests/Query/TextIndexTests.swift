import CloudantCore
import CloudantStore
import CloudantTestSupport
import Testing

@Suite("Full-text indexes (FTS5) and $text")
struct TextIndexTests {
    func notes() async throws -> TemporaryStore {
        let temp = try TemporaryStore()
        let rows: [JSONValue] = [
            ["_id": "n1", "title": "Running log", "body": "Ran five miles before the doctor's visit", "mood": 4],
            ["_id": "n2", "title": "Café notes", "body": "Reading list: books about sleep", "mood": 2],
            ["_id": "n3", "title": "Doctor visit", "body": "Blood pressure checked; doctor recommends walking", "mood": 3],
            ["_id": "n4", "title": "Shopping", "body": ["eggs", "bread"], "mood": 5],
        ]
        _ = try await temp.store.bulkDocs(rows)
        return temp
    }

    func ids(_ result: FindResult) -> Set<String> { Set(result.docs.compactMap { $0["_id"]?.stringValue }) }

    func search(_ store: DocumentStore, _ selector: String, extra: String = "") async throws -> FindResult {
        try await store.find(FindRequest(JSONValue(parsing: #"{"selector":\#(selector)\#(extra)}"#)))
    }

    @Test func textSearchFindsWordsAnywhereWithLuceneOrByDefault() async throws {
        let temp = try await notes()
        try await temp.store.createIndex(IndexDefinition(name: "everything", fields: [], type: .text))
        #expect(ids(try await search(temp.store, #"{"$text":"doctor"}"#)) == ["n1", "n3"])
        #expect(ids(try await search(temp.store, #"{"$text":"doctor books"}"#)) == ["n1", "n2", "n3"])
        #expect(ids(try await search(temp.store, #"{"$text":"doctor AND walking"}"#)) == ["n3"])
        #expect(ids(try await search(temp.store, #"{"$text":"doctor -walking"}"#)) == ["n1"])
        #expect(ids(try await search(temp.store, #"{"$text":"\"reading list\""}"#)) == ["n2"])
        #expect(ids(try await search(temp.store, #"{"$text":"bre*"}"#)) == ["n4"])
        // Accents fold with the standard analyzer, and other conditions still apply.
        #expect(ids(try await search(temp.store, #"{"$text":"cafe"}"#)) == ["n2"])
        #expect(ids(try await search(temp.store, #"{"$text":"doctor","mood":{"$gt":3}}"#)) == ["n1"])
        // CDTDatastore's spelling works too.
        #expect(ids(try await search(temp.store, #"{"$text":{"$search":"sleep"}}"#)) == ["n2"])
    }

    @Test func fieldScopedTermsSearchOnlyThatField() async throws {
        let temp = try await notes()
        try await temp.store.createIndex(
            IndexDefinition(name: "notes", fields: [.ascending("title"), .ascending("body")], type: .text))
        #expect(ids(try await search(temp.store, #"{"$text":"title:doctor"}"#)) == ["n3"])
        #expect(ids(try await search(temp.store, #"{"$text":"body:doctor"}"#)) == ["n1", "n3"])
        let error = await #expect(throws: CloudantError.self) { try await search(temp.store, #"{"$text":"mood:4"}"#) }
        #expect(error?.queryErrorKind?.rawValue == "bad_arg")
    }

    @Test func thePorterAnalyzerMatchesWordStems() async throws {
        let temp = try await notes()
        try await temp.store.createIndex(IndexDefinition(name: "stems", fields: [], type: .text, analyzer: .porter))
        #expect(ids(try await search(temp.store, #"{"$text":"run"}"#)) == ["n1"])  // "Running"
        #expect(ids(try await search(temp.store, #"{"$text":"recommend"}"#)) == ["n3"])
    }

    @Test func resultsComeMostRelevantFirstAndPageWithBookmarks() async throws {
        let temp = try await notes()
        try await temp.store.createIndex(IndexDefinition(name: "everything", fields: [], type: .text))
        let all = try await search(temp.store, #"{"$text":"doctor"}"#)
        #expect(all.docs.first?["_id"] == "n3")  // "doctor" twice plus in the title
        let first = try await search(temp.store, #"{"$text":"doctor"}"#, extra: #","limit":1"#)
        let second = try await search(temp.store, #"{"$text":"doctor"}"#, extra: #","limit":1,"bookmark":"\#(first.bookmark)""#)
        #expect(first.docs.map { $0["_id"] } + second.docs.map { $0["_id"] } == all.docs.map { $0["_id"] })
    }

    @Test func theTextIndexFollowsWritesAndDeletes() async throws {
        let temp = try await notes()
        try await temp.store.createIndex(IndexDefinition(name: "everything", fields: [], type: .text))
        let n2 = try await temp.store.document(id: "n2")
        try await temp.store.delete(id: "n2", rev: n2.rev ?? "")
        try await temp.store.put(["_id": "n5", "title": "More books"])
        #expect(ids(try await search(temp.store, #"{"$text":"books"}"#)) == ["n5"])
    }

    @Test func textQueriesNeedExactlyOneTextIndex() async throws {
        let temp = try await notes()
        let none = await #expect(throws: CloudantError.self) { try await search(temp.store, #"{"$text":"doctor"}"#) }
        #expect(none?.queryErrorKind?.rawValue == "no_usable_index")
        try await temp.store.createIndex(IndexDefinition(name: "one", fields: [], type: .text))
        try await temp.store.createIndex(IndexDefinition(name: "two", fields: [], type: .text, analyzer: .simple))
        let two = await #expect(throws: CloudantError.self) { try await search(temp.store, #"{"$text":"doctor"}"#) }
        #expect(two?.queryErrorKind?.rawValue == "multiple_text_indexes")
        #expect(ids(try await search(temp.store, #"{"$text":"doctor"}"#, extra: #","use_index":"two""#)) == ["n1", "n3"])
        let unsupported = await #expect(throws: CloudantError.self) {
            try await search(temp.store, #"{"$text":"doctr~"}"#, extra: #","use_index":"one""#)
        }
        #expect(unsupported?.queryErrorKind?.rawValue == "bad_arg")
    }
}
