import CloudantBase
@testable import CloudantCore
import Testing

@Suite("Splitting a written document into metadata and body")
struct IncomingDocumentTests {
    private func parse(_ text: String) throws -> IncomingDocument {
        guard case .object(let object) = try JSONValue(parsing: Array(text.utf8)) else { throw CloudantError(.invalidInput, "not an object") }
        return try IncomingDocument(object)
    }

    @Test("The body keeps every other member in written order, with _access and _replication_ members")
    func theBodyKeepsTheOtherMembersInOrder() throws {
        let document = try parse(
            #"{"z":1,"_id":"a","b":[2],"_rev":"1-abc","_access":["u"],"_conflicts":[],"a":{"x":null},"_replication_id":"r","_deleted":false,"_local_seq":3}"#)
        #expect(document.id == "a")
        #expect(document.rev == (try RevisionID(parsing: "1-abc")))
        #expect(document.deleted == false)
        #expect(document.body.keys == ["z", "b", "_access", "a", "_replication_id"])
        #expect(document.body["a"] == .object(["x": .null]))
    }

    @Test("Metadata members are found wherever they are written")
    func metadataAnywhere() throws {
        let document = try parse(
            #"{"v":1,"_attachments":{"t.txt":{"content_type":"text/plain","data":"aGk="}},"_deleted":true,"_revisions":{"start":2,"ids":["b","a"]},"_id":"x"}"#)
        #expect(document.id == "x")
        #expect(document.deleted)
        #expect(document.revisions?.map(\.description) == ["2-b", "1-a"])
        #expect(document.rev?.description == "2-b")
        #expect(document.attachments?.keys.sorted() == ["t.txt"])
        #expect(document.body.keys == ["v"])
    }

    @Test("An unknown special member is refused, after the checks of _id and _rev, naming the first such member")
    func unknownSpecialMembersAreRefusedInOrder() throws {
        #expect { try parse(#"{"_bogus":1,"_other":2}"#) } throws: {
            ($0 as? CloudantError)?.code == .documentValidation && ($0 as? CloudantError)?.context.field == "_bogus"
        }
        // A bad _id is reported first even when an unknown member comes before it.
        #expect { try parse(#"{"_bogus":1,"_id":3}"#) } throws: { ($0 as? CloudantError)?.context.field == "_id" }
        #expect { try parse(#"{"_bogus":1,"_rev":"x"}"#) } throws: { ($0 as? CloudantError)?.context.field == "_rev" }
        #expect { try parse(#"{"_deleted":"yes"}"#) } throws: {
            ($0 as? CloudantError)?.code == .documentValidation && ($0 as? CloudantError)?.context.field == "_deleted"
        }
    }

    @Test("A member is special when its first byte is an underscore, as in CouchDB, even before a combining mark")
    func specialByFirstByte() throws {
        // "_" followed by U+0301: one Swift Character that is not "_", but CouchDB's binary prefix matches.
        #expect { try parse("{\"_\u{0301}x\":1}") } throws: { ($0 as? CloudantError)?.code == .documentValidation }
        #expect(try parse(#"{"x_":1,"é_":2}"#).body.keys == ["x_", "é_"])
    }
}
