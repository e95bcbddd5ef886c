import CloudantCore
import Testing

@Suite("Revision hash")
struct RevisionHashTests {
    static let parent = "1-967a00dff5e02add41819138abb3284d"
    static let body: JSONObject = ["title": "Walk", "minutes": 30, "tags": ["am"]]
    static let attachments = [
        RevisionHash.AttachmentDigest(name: "b.txt", contentType: "text/plain", digest: "md5-bbb"),
        RevisionHash.AttachmentDigest(name: "a.jpg", contentType: "image/jpeg", digest: "md5-aaa"),
    ]

    static func mint(
        body: JSONObject = body, parent: String? = parent, deleted: Bool = false,
        attachments: [RevisionHash.AttachmentDigest] = attachments
    ) -> String {
        RevisionHash.mint(body: body, parentRevision: parent, deleted: deleted, attachments: attachments)
    }

    @Test func mintsThirtyTwoLowercaseHexCharacters() {
        let hash = Self.mint()
        #expect(hash.utf8.count == 32)
        #expect(hash.allSatisfy { "0123456789abcdef".contains($0) })
    }

    @Test func equalInputsGiveEqualHashes() {
        #expect(Self.mint() == Self.mint())
        let reordered: JSONObject = ["tags": ["am"], "minutes": 30.0, "title": "Walk"]
        #expect(Self.mint(body: reordered) == Self.mint())
        #expect(Self.mint(attachments: Self.attachments.reversed()) == Self.mint())
    }

    @Test func metadataMembersDoNotAffectTheHash() {
        var withMetadata = Self.body
        withMetadata["_id"] = "task-1"
        withMetadata["_rev"] = .string(Self.parent)
        withMetadata["_deleted"] = false
        #expect(Self.mint(body: withMetadata) == Self.mint())
    }

    @Test func anyChangeInTheBodyChangesTheHash() {
        var changedValue = Self.body
        changedValue["minutes"] = 31
        var addedMember = Self.body
        addedMember["note"] = nil
        addedMember["note"] = .null
        var nestedChange = Self.body
        nestedChange["tags"] = ["pm"]
        let variants = [changedValue, addedMember, nestedChange, JSONObject(), ["title": "Walk "]]
        let hashes = Set(variants.map { Self.mint(body: $0) } + [Self.mint()])
        #expect(hashes.count == variants.count + 1)
    }

    @Test func parentDeletedFlagAndAttachmentsEachChangeTheHash() {
        let base = Self.mint()
        let variants = [
            Self.mint(parent: nil),
            Self.mint(parent: "2-967a00dff5e02add41819138abb3284d"),
            Self.mint(deleted: true),
            Self.mint(attachments: []),
            Self.mint(attachments: [Self.attachments[0]]),
            Self.mint(attachments: [Self.attachments[0], .init(name: "a.jpg", contentType: "image/png", digest: "md5-aaa")]),
            Self.mint(attachments: [Self.attachments[0], .init(name: "a.jpg", contentType: "image/jpeg", digest: "md5-abc")]),
            Self.mint(attachments: [Self.attachments[0], .init(name: "c.jpg", contentType: "image/jpeg", digest: "md5-aaa")]),
        ]
        #expect(Set(variants + [base]).count == variants.count + 1)
    }

    @Test(arguments: [
        ["title": "Walk", "minutes": 30, "tags": ["am"]],
        ["value": 74.0, "nested": ["b": 1.5, "a": -0.0], "unicode": "Jane\u{2019}s \u{1F3C3}"],
        [:],
    ] as [JSONObject])
    func aFirstRevisionMintedFromCanonicalBytesEqualsTheGeneralMint(body: JSONObject) {
        let (sorted, canonical) = JSONValue.object(body).sortedAndCanonicalJSONBytes()
        #expect(canonical == JSONValue.object(body).canonicalJSONBytes())
        #expect(sorted == JSONValue.object(body).jsonBytes(sortedKeys: true))
        #expect(
            RevisionHash.mintFirst(canonicalBody: canonical)
                == RevisionHash.mint(body: body, parentRevision: nil, deleted: false, attachments: []))
    }

    @Test func hashesOfKnownInputsNeverChange() {
        // Frozen (spec D-12): md5 of
        // {"attachments":[["a.jpg","image/jpeg","md5-aaa"],["b.txt","text/plain","md5-bbb"]],
        //  "body":{"minutes":30,"title":"Walk"},"deleted":false,"parent":"1-967a00dff5e02add41819138abb3284d"}
        // computed outside Swift. If this fails, revision ids changed; restore the format.
        let hash = RevisionHash.mint(
            body: ["title": "Walk", "_id": "x", "minutes": 30.0], parentRevision: Self.parent, deleted: false,
            attachments: Self.attachments)
        #expect(hash == "74575404733773253e2dbe445af983dd")
        // {"attachments":[],"body":{},"deleted":false,"parent":null}
        #expect(
            RevisionHash.mint(body: JSONObject(), parentRevision: nil, deleted: false, attachments: [])
                == "dd4d5f9f9321afd5eca79c2ec847278f")
    }
}
