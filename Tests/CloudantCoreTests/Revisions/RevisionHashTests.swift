import CloudantCore
import CloudantTestSupport
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

    /// A bulk import stores bodies with members sorted by name at every depth and mints over that order
    /// (`mintSorted`), skipping the sort where an object is in order already: given in any order, sorted or not
    /// at each depth, the revision is the one `mint` gives the fully sorted body, with or without a size hint.
    @Test func aBodyMintedSortedHasTheRevisionOfItsMembersSortedAtEveryDepth() throws {
        var random = SplitMix64(seed: 41)
        let names = ["a", "b", "ab", "B", "é", "e\u{301}", "z", "_x", "metadata", "device", "10", "1"]
        func value(depth: Int) -> JSONValue {
            switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &random) {
            case 0: return .string(names.randomElement(using: &random)!)
            case 1: return .number(JSONNumber(Int.random(in: -300...300, using: &random)))
            case 2: return .number(JSONNumber(Double.random(in: -1...1, using: &random)))
            case 3: return Bool.random(using: &random) ? .bool(true) : .null
            case 4: return .array((0..<Int.random(in: 0...3, using: &random)).map { _ in value(depth: depth + 1) })
            default: return .object(object(depth: depth + 1))
            }
        }
        func object(depth: Int) -> JSONObject {
            var members: [(key: String, value: JSONValue)] = []
            for name in names.shuffled(using: &random).prefix(Int.random(in: 0...6, using: &random)) where name != "_x" || depth > 0 {
                members.append((name, value(depth: depth)))
            }
            // Some objects come sorted already, as an import builds them.
            if Bool.random(using: &random) { members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } }
            return JSONObject(members)
        }
        func sortedDeeply(_ value: JSONValue) -> JSONValue {
            switch value {
            case .array(let elements): return .array(elements.map(sortedDeeply))
            case .object(let object): return .object(sortedDeeply(object))
            default: return value
            }
        }
        func sortedDeeply(_ object: JSONObject) -> JSONObject {
            JSONObject(object.members.map { ($0.key, sortedDeeply($0.value)) }.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) })
        }
        for _ in 0..<500 {
            let body = object(depth: 0)
            let expected = RevisionHash.mint(body: sortedDeeply(body), parent: nil, deleted: false, attachments: [])
            #expect(RevisionHash.mintSorted(body: body) == expected)
            let size = JSONValue.object(body).jsonBytes(sortedKeys: true).count
            #expect(RevisionHash.mintSorted(body: body, jsonByteCount: size) == expected)
            #expect(RevisionHash.mintSorted(body: body, jsonByteCount: 0) == expected)
        }
    }

    @Test func anIntegerAndTheSameValueAsAFloatAreDifferentRevisions() throws {
        let integer = RevisionHash.mint(
            body: try JSONValue(parsing: #"{"v":1}"#).objectValue!, parentRevision: nil, deleted: false, attachments: [])
        let float = RevisionHash.mint(
            body: try JSONValue(parsing: #"{"v":1.0}"#).objectValue!, parentRevision: nil, deleted: false, attachments: [])
        #expect(integer != float)
    }
}
