import CloudantCore
import Testing

@Suite("Document ids")
struct DocumentIDTests {
    @Test(arguments: ["a", "task-42", "Ü-ñ", " ", "a_b", "design/x", "local/_x"])
    func acceptsOrdinaryIDs(_ id: String) throws {
        try DocumentID.validate(id)
    }

    @Test(arguments: ["_design/app", "_design/a/b", "_local/checkpoint", "_local/_x"])
    func acceptsNamedDesignAndLocalIDs(_ id: String) throws {
        try DocumentID.validate(id)
    }

    @Test func rejectsTheEmptyID() {
        let error = expectError(.invalidInput) { try DocumentID.validate("") }
        #expect(error?.context.field == "_id")
        #expect(error?.message.hasPrefix("Document id must not be empty.") == true)
    }

    @Test(arguments: ["_design/", "_local/"])
    func rejectsBareReservedPrefixes(_ id: String) {
        let error = expectError(.invalidInput) { try DocumentID.validate(id) }
        #expect(error?.message.hasPrefix("Illegal document id `\(id)`.") == true)
        #expect(error?.context.documentID == id)
    }

    @Test(arguments: ["_private", "_", "_design", "_local", "_Design/app", "_LOCAL/x", "_users/x"])
    func rejectsOtherUnderscoreIDsWithCouchDBsReason(_ id: String) {
        let error = expectError(.invalidInput) { try DocumentID.validate(id) }
        #expect(error?.message.hasPrefix("Only reserved document ids may start with underscore.") == true)
        #expect(error?.context.field == "_id")
        #expect(error?.context.documentID == id)
    }

    @Test func classifiesLocalAndDesignIDsByBytePrefix() {
        #expect(DocumentID.isLocal("_local/x"))
        #expect(!DocumentID.isLocal("_Local/x"))
        #expect(!DocumentID.isLocal("x/_local/"))
        #expect(DocumentID.isDesign("_design/app"))
        #expect(!DocumentID.isDesign("_local/app"))
        #expect(!DocumentID.isDesign("design/app"))
    }
}

/// Ids with NUL are refused: SQLite's C strings end at NUL, so `a%00x` would read and write the document `a`,
/// and `%00x` a document with an empty id.
@Suite("Document ids: NUL and UTF-8")
struct DocumentIDEncodingTests {
    @Test(arguments: ["a\u{0}x", "\u{0}x", "\u{0}", "_design/a\u{0}"])
    func anIDContainingNULIsRefused(_ id: String) {
        let error = expectError(.invalidInput) { try DocumentID.validate(id) }
        #expect(error?.context.field == "_id")
        #expect(error?.message.hasPrefix("Document id must not contain NUL") == true)
        #expect(error?.context.documentID?.contains("\u{0}") == false)
    }

    @Test func aDocumentBodyWhoseIDContainsNULIsRefused() {
        expectError(.invalidInput) { _ = try IncomingDocument(["_id": "a\u{0}x"]) }
    }

    @Test func bytesThatAreNotUTF8AreRefusedWithCouchDBsReason() {
        let error = expectError(.invalidInput) { _ = try DocumentID.decode(utf8: [0x61, 0xFF, 0x78]) }
        #expect(error?.message.hasPrefix("Document id must be valid UTF-8") == true)
        #expect(error?.context.field == "_id")
        expectError(.invalidInput) { _ = try DocumentID.decode(utf8: [0xC3]) }  // cut-short sequence
        expectError(.invalidInput) { _ = try DocumentID.decode(utf8: [0xED, 0xA0, 0x80]) }  // a surrogate
    }

    @Test func utf8BytesDecodeToTheIDTheySpell() throws {
        #expect(try DocumentID.decode(utf8: Array("é-1".utf8)) == "é-1")
        expectError(.invalidInput) { _ = try DocumentID.decode(utf8: Array("_private".utf8)) }
    }
}
