import CloudantCore
@testable import CloudantStore
import Foundation
import Testing

/// A prepared write mints its revision before the write transaction; the hash must be exactly the one
/// `RevisionHash` (CouchDB's rule) mints from the body, its parent and its attachments in written order.
@Suite("Prepared writes")
struct PreparedWriteTests {
    /// Bodies with every JSON type: member order at the top and inside, integral doubles, negative zero, big
    /// integers, escapes and non-ASCII names.
    private static let bodies: [JSONValue] = [
        [:],
        ["z": 1, "a": 2],
        ["a": 1, "b": "two", "c": .null, "d": true],
        ["value": .number(.double(74.0)), "unit": "count/min"],
        ["value": .number(.double(-0.0))],
        ["value": .number(.double(0.1)), "tiny": .number(.double(1e-7)), "huge": .number(.double(5e20))],
        ["big": .number(.bigInteger("123456789012345678901234567890")), "small": .number(JSONNumber(-7))],
        ["outer": ["z": 1, "a": ["y": 2, "b": 3]], "first": 0],
        ["outer": ["a": 1, "b": ["c": 2, "d": 3]], "list": [["q": 1, "p": 2], 3, "x"]],
        ["list": [1.5, .number(.double(2.0)), ["k": .number(.double(3.0))]]],
        ["é": 1, "e": 2, "z": 3, "Z": 4, "\u{1F600}": 5, "ａ": 6],
        ["quote\"d": "back\\slash", "ctl": "\u{1}\n\t", "sep": "\u{2028}"],
        ["type": "HKQuantitySample", "value": 72, "unit": "count/min", "startDate": "2026-11-21T10:00:00.000Z", "note": .string(String(repeating: "abcdefghij", count: 90))],
    ]

    @Test("The revision prepared is the one minted from the body", arguments: 0..<13)
    func theMintedRevisionIsTheBodysOwn(index: Int) throws {
        let body = try #require(Self.bodies[index].objectValue)
        for (parent, deleted) in [(nil, false), ("1-967a00dff5e02add41819138abb3284d", false), ("2-abc", true)] as [(String?, Bool)] {
            var document = body
            if let parent { document["_rev"] = .string(parent) }
            if deleted { document["_deleted"] = true }
            document["_id"] = "doc"
            let incoming = try IncomingDocument(document)
            let prepared = PreparedWrite(incoming)
            let expected = RevisionHash.mint(body: body, parentRevision: parent, deleted: deleted, attachments: [])
            #expect(prepared.speculativeHash == expected, "\(Self.bodies[index]) parent \(parent ?? "none")")
            #expect(prepared.body == JSONValue.object(body).jsonBytes())
        }
    }

    @Test("With attachments, the revision prepared is the one minted from the body and the attachments in written order", arguments: [0, 1, 7, 10])
    func theMintedRevisionWithAttachmentsIsTheBodysOwn(index: Int) throws {
        let body = try #require(Self.bodies[index].objectValue)
        let data = JSONValue.string(Data("hello".utf8).base64EncodedString())
        for parent in [nil, "3-0123456789abcdef0123456789abcdef"] as [String?] {
            var document = body
            document["_id"] = "doc"
            if let parent { document["_rev"] = .string(parent) }
            document["_attachments"] = [
                "z.txt": ["content_type": "text/plain", "data": data], "a.bin": ["content_type": "application/octet-stream", "data": data],
            ]
            let prepared = PreparedWrite(try IncomingDocument(document))
            let encoded = try prepared.encodedAttachments.get()
            #expect(encoded.count == 2)
            let digests = ["z.txt", "a.bin"].compactMap { name in
                encoded[name].map {
                    RevisionHash.AttachmentDigest(name: name, contentType: $0.info.contentType, digest: $0.info.digest)
                }
            }
            let expected = RevisionHash.mint(body: body, parentRevision: parent, deleted: false, attachments: digests)
            #expect(prepared.speculativeHash == expected, "\(Self.bodies[index]) parent \(parent ?? "none")")
        }
    }

    @Test("Members are located only when their values are already canonical")
    func membersAreLocatedOnlyWhenCanonical() throws {
        for (body, canonical) in [
            (["b": 1, "a": ["d": 1, "c": 2]] as JSONValue, false), (["b": 1, "a": ["c": 2, "d": 1]], true),
            (["b": .number(.double(2.0))], false), (["b": .number(.double(2.5))], true),
        ] {
            var writer = JSONWriter()
            let ranges = writer.writeMembers(of: try #require(body.objectValue))
            #expect((ranges != nil) == canonical, "\(body)")
            #expect(writer.output == body.jsonBytes())
        }
    }
}
