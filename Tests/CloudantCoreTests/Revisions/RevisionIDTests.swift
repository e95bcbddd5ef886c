import CloudantCore
import Foundation
import Testing

@Suite("Revision ids")
struct RevisionIDTests {
    @Test func parsesGenerationAndHash() throws {
        let revision = try RevisionID(parsing: "3-917fa2381192822767f010b95b45325b")
        #expect(revision.generation == 3)
        #expect(revision.hash == "917fa2381192822767f010b95b45325b")
        #expect(revision.description == "3-917fa2381192822767f010b95b45325b")
    }

    @Test func splitsAtTheFirstDash() throws {
        let revision = try RevisionID(parsing: "12-a-b-c")
        #expect(revision.generation == 12)
        #expect(revision.hash == "a-b-c")
    }

    @Test func lowercasesThirtyTwoCharacterHexHashes() throws {
        let revision = try RevisionID(parsing: "2-7051CBE5C8FAECD085A3FA619E6E6337")
        #expect(revision.hash == "7051cbe5c8faecd085a3fa619e6e6337")
        #expect(revision == rev("2-7051cbe5c8faecd085a3fa619e6e6337"))
    }

    @Test func keepsHashesOfOtherLengthsVerbatim() throws {
        #expect(try RevisionID(parsing: "1-ABC").hash == "ABC")
        #expect(try RevisionID(parsing: "1-ABCDEFABCDEFABCDEFABCDEFABCDEFABC").hash == "ABCDEFABCDEFABCDEFABCDEFABCDEFABC")
        #expect(try RevisionID(parsing: "1-ünïcode").hash == "ünïcode")
    }

    @Test("A revision is the same value however it was made: parsed, given verbatim, or read from a stored tree")
    func aRevisionIsOneValueWhateverItWasMadeFrom() throws {
        let lower = "7051cbe5c8faecd085a3fa619e6e6337"
        let upper = lower.uppercased()
        let made = [
            try RevisionID(parsing: "2-\(lower)"), try RevisionID(parsing: "2-\(upper)"), RevisionID(generation: 2, hash: lower),
        ]
        for revision in made {
            #expect(revision == made[0])
            #expect(revision.hashValue == made[0].hashValue)
            #expect(revision.hash == lower)
            #expect(revision.description == "2-\(lower)")
        }
        // Given verbatim in uppercase, a hash stays as given: another revision, ordered by the bytes it spells
        // and then by its text, so before the lowercase spelling of the same bytes.
        let verbatim = RevisionID(generation: 2, hash: upper)
        #expect(verbatim.hash == upper && verbatim.description == "2-\(upper)")
        #expect(verbatim != made[0] && verbatim < made[0] && !(made[0] < verbatim))
        // Sixteen raw bytes are the hash of their hex digits, as CouchDB writes them back.
        let raw = try RevisionID(parsing: "3-" + String(decoding: Array(0x61..<0x71).map { UInt8($0) }, as: UTF8.self))
        #expect(raw.hash == "6162636465666768696a6b6c6d6e6f70")
        #expect(raw == RevisionID(generation: 3, hash: "6162636465666768696a6b6c6d6e6f70"))
        // A stored tree gives back each form it was given, equal and hashing alike.
        var tree = RevisionTree()
        try tree.merge(path: [verbatim, RevisionID(generation: 1, hash: "x")], deleted: false)
        try tree.merge(path: [made[1], RevisionID(generation: 1, hash: "x")], deleted: false)
        let decoded = try RevisionTree(decoding: tree.encoded())
        #expect(Set(decoded.allRevisions) == [verbatim, made[0], RevisionID(generation: 1, hash: "x")])
        #expect(decoded.allRevisions.map(\.description) == ["1-x", "2-\(upper)", "2-\(lower)"])
    }

    @Test func acceptsGenerationZeroForLocalDocuments() throws {
        let revision = try RevisionID(parsing: "0-1")
        #expect(revision.generation == 0)
        #expect(revision.hash == "1")
    }

    @Test(arguments: [
        "abc", "0-", "-1-x", "x-abc", "1-", "", "-", "1x-a", "+1-a", " 1-a", "1.0-a",
        "99999999999999999999999-a", "1-" + String(repeating: "g", count: 32), "1-" + String(repeating: "a", count: 31) + "-",
    ])
    func rejectsMalformedRevisions(_ text: String) {
        let error = expectError(.invalidInput) { _ = try RevisionID(parsing: text) }
        #expect(error?.message.hasPrefix("Invalid rev format") == true)
        #expect(error?.context.field == "_rev")
        #expect(error?.context.revision == text)
        #expect(RevisionID(text) == nil)
    }

    @Test func ordersByGenerationThenHashBytes() {
        #expect(rev("2-z") < rev("10-a"))
        #expect(rev("3-ab") < rev("3-b"))
        #expect(rev("3-B") < rev("3-a"))  // uppercase bytes sort first in a verbatim hash
        #expect(rev("3-a") < rev("3-aa"))
        #expect(!(rev("3-a") < rev("3-a")))
    }

    @Test func equalityAndOrderCompareBytesNotCanonicalEquivalence() {
        let composed = RevisionID(generation: 1, hash: "\u{E9}")  // é
        let decomposed = RevisionID(generation: 1, hash: "e\u{301}")  // e + combining acute
        #expect(composed != decomposed)
        #expect((composed < decomposed) != (decomposed < composed))
        #expect(Set([composed, decomposed]).count == 2)
    }

    @Test func descriptionParsesBackToTheSameRevision() throws {
        for text in ["1-a", "42-967a00dff5e02add41819138abb3284d", "7-x-y", "0-0"] {
            let revision = rev(text)
            #expect(try RevisionID(parsing: revision.description) == revision)
        }
    }

    @Test func codesAsItsStringForm() throws {
        let revision = rev("5-abc")
        let data = try JSONEncoder().encode([revision])
        #expect(String(decoding: data, as: UTF8.self) == #"["5-abc"]"#)
        #expect(try JSONDecoder().decode([RevisionID].self, from: data) == [revision])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([RevisionID].self, from: Data(#"["nope"]"#.utf8))
        }
    }
}
