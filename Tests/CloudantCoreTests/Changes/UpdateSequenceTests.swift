import CloudantCore
import Testing

/// `since` read as `fabric_view_changes:unpack_seqs/2` reads it: the opaque part decides, and the uuid it carries
/// tells a sequence of this database from one of another (`couch_db:calculate_start_seq/3`).
@Suite("Update sequences")
struct UpdateSequenceTests {
    private let uuid = "0123456789abcdef0123456789abcdef"

    @Test func aSequenceCarriesItsDatabasesUUIDPrefixAndReadsBack() throws {
        let text = UpdateSequence.string(42, uuid: uuid)
        #expect(text.hasPrefix("42-"))
        #expect(UpdateSequence.parse(text) == 42)
        let since = try #require(UpdateSequence.since(text))
        #expect(since == UpdateSequence.Since(seq: 42, uuid: "0123456"))
        #expect(since.start(inDatabase: uuid) == 42)
        #expect(since.start(inDatabase: "fedcba9876543210fedcba9876543210") == 0)
        // In double quotes, as some clients send it, and without the number in front.
        #expect(UpdateSequence.since("\"\(text)\"") == since)
        #expect(UpdateSequence.since(String(text.dropFirst(3))) == since)
    }

    @Test func theOpaquePartDecidesNotTheNumberInFront() throws {
        let one = UpdateSequence.string(1, uuid: uuid)
        let opaque = one.dropFirst(2)
        #expect(UpdateSequence.since("0-" + opaque)?.seq == 1)
        #expect(UpdateSequence.since("1-garbage") == nil)
        #expect(UpdateSequence.since("1-") == nil)
        #expect(UpdateSequence.since("") == nil)
    }

    @Test func zeroPlainIntegersAndSequencesWithoutAUUIDAreTakenAsTheyAre() throws {
        #expect(UpdateSequence.since("0") == UpdateSequence.Since(seq: 0))
        #expect(UpdateSequence.since("17")?.start(inDatabase: uuid) == 17)
        let unnamed = try #require(UpdateSequence.since(UpdateSequence.string(9)))
        #expect(unnamed.uuid == "" && unnamed.start(inDatabase: uuid) == 9)
    }

    @Test func aSequenceOfAnotherClustersShardsStartsFromZero() throws {
        // term_to_binary([{'couchdb@10.0.0.1', [0, 2147483647], {5, <<"abcdefa">>, 'couchdb@10.0.0.1'}}]), base64url:
        // half the ring of another cluster's node.
        let text = "5-g2wAAAABaANkABBjb3VjaGRiQDEwLjAuMC4xbAAAAAJhAGJ_____amgDYQVtAAAAB2FiY2RlZmFkABBjb3VjaGRiQDEwLjAuMC4xag"
        #expect(UpdateSequence.since(text) != nil)
        #expect(UpdateSequence.since(text) == UpdateSequence.Since(seq: 0))
    }

    @Test func hostileTermsAreMalformedNotCrashes() {
        // A list claiming four billion elements, a tuple nested past the depth limit, a truncated binary.
        let huge: [UInt8] = [131, 108, 255, 255, 255, 255, 106]
        let deep: [UInt8] = [131] + Array(repeating: [104, 1], count: 100).flatMap { $0 } + [97, 1]
        let truncated: [UInt8] = [131, 109, 0, 0, 0, 9, 1, 2]
        for bytes in [huge, deep, truncated] {
            #expect(ErlangValue(externalFormat: bytes) == nil)
            let text = Base64.encode(bytes).replacingOccurrences(of: "=", with: "")
            #expect(UpdateSequence.since("1-" + text) == nil)
        }
        #expect(ErlangValue(externalFormat: [131, 104, 2, 97, 1, 100, 0, 1, 120]) == .tuple([.integer(1), .atom("x")]))
    }
}
