import CloudantCore
import Testing

@Suite("Document ids (D-1)")
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
        let error = expectError(.invalidValue) { try DocumentID.validate("") }
        #expect(error?.context.field == "_id")
        #expect(error?.message.hasPrefix("Document id must not be empty.") == true)
    }

    @Test(arguments: ["_design/", "_local/"])
    func rejectsBareReservedPrefixes(_ id: String) {
        let error = expectError(.invalidValue) { try DocumentID.validate(id) }
        #expect(error?.message.hasPrefix("Illegal document id `\(id)`.") == true)
        #expect(error?.context.documentID == id)
    }

    @Test(arguments: ["_private", "_", "_design", "_local", "_Design/app", "_LOCAL/x", "_users/x"])
    func rejectsOtherUnderscoreIDsWithCouchDBsReason(_ id: String) {
        let error = expectError(.invalidValue) { try DocumentID.validate(id) }
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
