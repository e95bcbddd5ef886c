import CloudantCore
import Foundation
import Testing

/// Revision ids minted here are CouchDB's: `Tests/Fixtures/CouchDBRevisions/revisions.jsonl` holds revisions
/// CouchDB computed (its own test suite's, and answers of CouchDB servers) and revisions of
/// `term_to_binary([Deleted, OldStart, OldRev, Body, Atts], [{minor_version, 1}])` computed by Erlang/OTP for
/// bodies with every JSON type, parents and attachments.
@Suite("Revision hash")
struct RevisionHashTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let body: JSONObject
        let parent: String?
        let deleted: Bool
        let attachments: [RevisionHash.AttachmentDigest]
        let rev: String
        let source: String

        var testDescription: String { "\(rev) (\(source.prefix(40)))" }
    }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/CouchDBRevisions/revisions.jsonl")

    static func vectors() throws -> [Vector] {
        let text = try String(contentsOf: fixture, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let case_ = try JSONValue(parsing: String(line))
            let attachments = (case_["atts"]?.arrayValue ?? []).map { entry in
                let parts = entry.arrayValue?.compactMap(\.stringValue) ?? []
                return RevisionHash.AttachmentDigest(name: parts[0], contentType: parts[1], digest: parts[2])
            }
            return Vector(
                body: case_["body"]?.objectValue ?? JSONObject(), parent: case_["parent"]?.stringValue,
                deleted: case_["deleted"]?.boolValue ?? false, attachments: attachments,
                rev: case_["rev"]?.stringValue ?? "", source: case_["source"]?.stringValue ?? "")
        }
    }

    @Test(arguments: try vectors())
    func mintsTheRevisionCouchDBComputes(vector: Vector) throws {
        let parent = try vector.parent.map { try RevisionID(parsing: $0) }
        let hash = RevisionHash.mint(
            body: vector.body, parentRevision: vector.parent, deleted: vector.deleted, attachments: vector.attachments)
        #expect("\((parent?.generation ?? 0) + 1)-\(hash)" == vector.rev)
    }

    @Test func theFixtureCoversEveryKindOfInput() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count >= 20)
        #expect(vectors.contains { !$0.attachments.isEmpty && $0.parent != nil })
        #expect(vectors.contains { $0.deleted })
        #expect(vectors.contains { $0.source.hasPrefix("CouchDB") })
    }

    @Test func metadataMembersDoNotAffectTheHashButAccessDoes() {
        let plain = RevisionHash.mint(body: ["title": "Walk"], parentRevision: nil, deleted: false, attachments: [])
        let withMetadata = RevisionHash.mint(
            body: ["_id": "a", "title": "Walk", "_rev": "1-x", "_deleted": false, "_conflicts": []], parentRevision: nil,
            deleted: false, attachments: [])
        #expect(plain == withMetadata)
        let withAccess = RevisionHash.mint(
            body: ["_access": ["zoe"], "title": "Walk"], parentRevision: nil, deleted: false, attachments: [])
        #expect(withAccess != plain)
    }

    @Test func memberOrderAndAttachmentOrderArePartOfTheRevision() {
        let attachments = [
            RevisionHash.AttachmentDigest(name: "a", contentType: "image/png", digest: "md5-O9r1lpKFGIrHVsM59p9ceQ=="),
            RevisionHash.AttachmentDigest(name: "b", contentType: "image/png", digest: "md5-RBB3zJ5XVU3Udr37i4uBAg=="),
        ]
        let ab = RevisionHash.mint(body: ["x": 1, "y": 2], parentRevision: nil, deleted: false, attachments: attachments)
        let ba = RevisionHash.mint(body: ["y": 2, "x": 1], parentRevision: nil, deleted: false, attachments: attachments)
        let reversed = RevisionHash.mint(
            body: ["x": 1, "y": 2], parentRevision: nil, deleted: false, attachments: attachments.reversed())
        #expect(Set([ab, ba, reversed]).count == 3)
    }

    @Test func anIntegerAndTheSameValueAsAFloatAreDifferentRevisions() throws {
        let integer = RevisionHash.mint(
            body: try JSONValue(parsing: #"{"v":1}"#).objectValue!, parentRevision: nil, deleted: false, attachments: [])
        let float = RevisionHash.mint(
            body: try JSONValue(parsing: #"{"v":1.0}"#).objectValue!, parentRevision: nil, deleted: false, attachments: [])
        #expect(integer != float)
    }
}
