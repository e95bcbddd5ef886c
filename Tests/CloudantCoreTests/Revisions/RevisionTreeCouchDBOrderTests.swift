import CloudantCore
import Testing

/// The orders CouchDB 3.5 answers revisions in, each recorded from a real CouchDB 3.5.0 on the same tree:
/// `1-h1 → 2-h2 → 3-h3`, a sibling branch `1-h1 → 2-h9`, and a disjoint root `4-h4 → 5-h5` (as a
/// stemmed history that came back would leave it). `hN` is the 32-digit hex of N.
@Suite("Revision orders as CouchDB answers them")
struct RevisionTreeCouchDBOrderTests {
    private func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 32 - digits.count) + digits
    }

    private func r(_ generation: Int, _ value: Int) -> RevisionID { rev("\(generation)-\(hex(value))") }

    private func tree() throws -> RevisionTree {
        try makeTree(
            "1-\(hex(1)) 2-\(hex(2)) 3-\(hex(3))", "1-\(hex(1)) 2-\(hex(9))", "4-\(hex(4)) 5-\(hex(5))")
    }

    @Test func revsDiffListsMissingRevisionsInCouchDBsFindMissingOrder() throws {
        let asked = [r(6, 7), r(1, 1), r(4, 8), rev("2-zz"), r(3, 3), r(2, 8), r(1, 0), r(5, 6), r(4, 4), rev("3-aa")]
        let diff = try tree().revsDiff(asked)
        #expect(diff.missing == [r(1, 0), r(2, 8), rev("2-zz"), rev("3-aa"), r(4, 8), r(5, 6), r(6, 7)])
        #expect(diff.possibleAncestors == [r(5, 5), r(3, 3), r(2, 9)])
    }

    @Test func bulkGetListsLeavesFromTheLastRootDepthFirst() throws {
        let tree = try tree()
        #expect(tree.bulkGetOrder(tree.leaves) == [r(5, 5), r(3, 3), r(2, 9)])
        // A revision the tree does not hold is a root of its own, ordered with the others.
        #expect(tree.bulkGetOrder([r(2, 9), r(7, 1)]) == [r(7, 1), r(2, 9)])
    }

    @Test func openRevsAllSortsLeavesByGenerationThenStoredHash() throws {
        #expect(try tree().leaves.sorted() == [r(2, 9), r(3, 3), r(5, 5)])
    }

    /// CouchDB stores a 32-digit hex hash as its 16 bytes and other hashes as text, and compares those:
    /// `2-ff…f` (bytes 0xff) beats `2-zzz` (0x7a) though its text sorts first.
    @Test func hexHashesCompareAsTheirBytesAgainstTextHashes() throws {
        let hexRev = rev("2-" + String(repeating: "f", count: 32))
        #expect(rev("2-zzz") < hexRev)
        #expect(rev("2-zz") > r(2, 8))
        #expect(rev("2-0") > rev("2-" + hex(0)))  // "0" is byte 0x30, the hex is sixteen 0x00 bytes.
        let tree = try makeTree("1-a 2-zzz", "1-a \(hexRev.description)")
        #expect(tree.winner == hexRev)
        #expect(tree.conflicts == [rev("2-zzz")])
    }

    /// CouchDB writes any 16-byte hash as the hex of its bytes, so a 16-character hash is that revision.
    @Test func aSixteenByteHashIsTheHexOfItsBytes() throws {
        #expect(rev("1-abcdefghijklmnop").description == "1-6162636465666768696a6b6c6d6e6f70")
        #expect(rev("1-abcdefghijklmnop") == rev("1-6162636465666768696A6B6C6D6E6F70"))
        #expect(rev("1-abcdéfghijklmn").description == "1-abcdéfghijklmn")  // 15 bytes: kept as written
    }
}
