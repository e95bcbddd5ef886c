import Foundation
import CloudantCore
import CloudantTestSupport
import Testing

@Suite("Revision tree: storage encoding")
struct RevisionTreeEncodingTests {
    @Test func emptyTreeRoundTrips() throws {
        let bytes = RevisionTree().encoded()
        #expect(bytes == [1, 0])
        #expect(try RevisionTree(decoding: bytes) == RevisionTree())
    }

    @Test func craftedTreeRoundTripsWithEveryFlagAndHashForm() throws {
        var tree = try makeTree(
            "1-967a00dff5e02add41819138abb3284d 2-ABC 3-7051cbe5c8faecd085a3fa619e6e6337",
            "1-967a00dff5e02add41819138abb3284d 2-ünï-cödé*", "7-x-y", "300-z 301-q*")
        try tree.write("4-d", naming: "3-7051cbe5c8faecd085a3fa619e6e6337")
        tree.markBodiesMissingExceptLeaves()
        let unusual = RevisionID(generation: 1, hash: "7051CBE5C8FAECD085A3FA619E6E6337")  // minted verbatim
        var second = RevisionTree()
        try second.addChild(unusual, of: nil, deleted: false)

        for original in [tree, second] {
            let decoded = try RevisionTree(decoding: original.encoded())
            #expect(decoded == original)
            #expect(decoded.winner == original.winner)
            #expect(decoded.description == original.description)
        }
    }

    @Test func equalTreesEncodeToEqualBytes() throws {
        let oneWay = try makeTree("1-a 2-b 3-c", "1-a 2-x", "5-q")
        let otherWay = try makeTree("5-q", "1-a 2-x", "1-a 2-b 3-c")
        #expect(oneWay.encoded() == otherWay.encoded())
        #expect(try RevisionTree(decoding: oneWay.encoded()[...]) == oneWay)  // any byte collection
    }

    @Test func linearHistoryOfHexRevisionsCostsNineteenBytesARevision() throws {
        var tree = RevisionTree()
        var parent: RevisionID?
        for generation in 1...1000 {
            let hash = String(repeating: String(generation % 16, radix: 16), count: 24) + hexSuffix(generation)
            let revision = RevisionID(generation: generation, hash: hash)
            try tree.addChild(revision, of: parent, deleted: false)
            parent = revision
        }
        let bytes = tree.encoded()
        #expect(bytes.count <= 2 + 3 + 1000 * 19)
        #expect(try RevisionTree(decoding: bytes) == tree)
    }

    @Test func corruptBytesAreRejectedWithAPosition() throws {
        let good = try makeTree("1-967a00dff5e02add41819138abb3284d 2-b", "1-967a00dff5e02add41819138abb3284d 2-c")
            .encoded()
        var badFlags = good
        badFlags[badFlags.count - 5] |= 0x10  // the last node's flags now claim an unknown bit
        let candidates: [[UInt8]] = [
            [], [2, 0], [1], [1, 1], Array(good.dropLast()), good + [0], badFlags,
            [1, 1, 0x02, 0, 1, 0x61],  // generation 0
            [1, 2, 0x02, 1, 1, 0x61, 0x02, 0, 1, 0x61],  // a revision repeated
            [1, 2, 0x02, 1, 1, 0x61, 0x06, 0, 1, 1, 0x62],  // parent not one generation older
            [1, 1, 0x06, 1, 1, 1, 0x61],  // parent link out of range
            [1, 1, 0x02, 1, 2, 0xC3, 0x28],  // invalid UTF-8
            [1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],  // absurd count
        ]
        for bytes in candidates {
            let error = expectError(.invalidInput) { _ = try RevisionTree(decoding: bytes) }
            #expect(error?.context.position != nil)
            #expect(error?.message.hasPrefix("The stored revision tree is corrupt") == true)
        }
    }

    private func hexSuffix(_ value: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }

    @Test(
        "A new document's tree encodes without building it to the same bytes",
        arguments: ["967a00dff5e02add41819138abb3284d", "967A00DFF5E02ADD41819138ABB3284D", "abc", "x-y_z", "0123456789abcdef0123456789abcdeg"],
        [false, true])
    func firstRevisionEncodesLikeItsTree(hash: String, deleted: Bool) throws {
        var tree = RevisionTree()
        try tree.addChild(RevisionID(generation: 1, hash: hash), of: nil, deleted: deleted)
        let direct = RevisionTree.encodedFirstRevision(hash: hash, deleted: deleted)
        #expect(direct == tree.encoded())
        #expect(try RevisionTree(decoding: direct) == tree)
    }

    @Test("The winner read from a stored tree is the decoded tree's winner, for one revision or many")
    func theWinnerReadFromStoredBytesIsTheDecodedTreesWinner() throws {
        var deletedWinner = try makeTree("1-a 2-b", "1-a 2-c")
        try deletedWinner.write("3-d", naming: "2-c", deleted: true)
        var trees = [
            RevisionTree(), try makeTree("1-967a00dff5e02add41819138abb3284d"), try makeTree("7-x-y_z"),
            try makeTree("1-a 2-b 3-c", "1-a 2-x", "5-q"), deletedWinner,
            try makeTree("1-967a00dff5e02add41819138abb3284d 2-ünï-cödé*", "1-967a00dff5e02add41819138abb3284d 2-ABC"),
        ]
        for hash in ["967a00dff5e02add41819138abb3284d", "967A00DFF5E02ADD41819138ABB3284D", "abc"] {
            for deleted in [false, true] {
                var tree = RevisionTree()
                try tree.addChild(RevisionID(generation: 1, hash: hash), of: nil, deleted: deleted)
                trees.append(tree)
                trees.append(try makeTree("300-" + hash + (deleted ? "*" : "")))  // a history stemmed to one node
            }
        }
        // Generations of several decimal lengths up to the largest allowed, for the text written without a String.
        for generation in [9, 10, 99, 100, 12_345, 1_000_000_007, RevisionID.maximumGeneration] {
            trees.append(try makeTree("\(generation)-00ff00ff00ff00ff00ff00ff00ff00ff"))
        }
        try expectWinnersReadFromBytes(of: trees)
    }

    @Test("The leaf of one unbroken history, read from its bytes without decoding, is the decoded tree's winner")
    func theLeafOfOneHistoryIsReadFromItsBytes() throws {
        func hex(_ value: Int) -> String {
            let digits = String(UInt64(bitPattern: Int64(value)), radix: 16)
            return String(repeating: "0", count: 32 - digits.count) + digits
        }
        func history(from first: Int, count: Int, deletedLeaf: Bool = false, textAt: Int? = nil) throws -> RevisionTree {
            var tree = RevisionTree()
            var parent: RevisionID?
            for generation in first..<(first + count) {
                let hash = generation == textAt ? "text-\(generation)" : hex(generation &* 7919)
                let revision = RevisionID(generation: generation, hash: hash)
                try tree.merge(path: [revision] + (parent.map { [$0] } ?? []), deleted: deletedLeaf && generation == first + count - 1)
                parent = revision
            }
            return tree
        }
        var trees: [RevisionTree] = []
        for count in [2, 3, 17, 200] {
            for first in [1, 2, 300, RevisionID.maximumGeneration - count] {
                trees.append(try history(from: first, count: count))
                trees.append(try history(from: first, count: count, deletedLeaf: true))
                trees.append(try history(from: first, count: count, textAt: first + count / 2))
                trees.append(try history(from: first, count: count, textAt: first + count - 1))
            }
        }
        // Not one history: a gap (two roots), a branch, a second root of one revision.
        var gap = try history(from: 1, count: 5)
        try gap.merge(path: [RevisionID(generation: 9, hash: hex(1))], deleted: false)
        var branch = try history(from: 1, count: 5)
        try branch.merge(path: [RevisionID(generation: 5, hash: hex(2)), RevisionID(generation: 4, hash: hex(4 * 7919))], deleted: false)
        var deletedBranch = branch
        try deletedBranch.merge(path: [RevisionID(generation: 6, hash: hex(3)), RevisionID(generation: 5, hash: hex(5 * 7919))], deleted: true)
        var secondRoot = try history(from: 3, count: 4)
        try secondRoot.merge(path: [RevisionID(generation: 1, hash: hex(5))], deleted: false)
        trees += [gap, branch, deletedBranch, secondRoot]
        try expectWinnersReadFromBytes(of: trees)
        // Damaged bytes of a long history are refused as decoding refuses them, never read as a winner.
        let good = try history(from: 1, count: 40).encoded()
        var unknownFlag = good
        unknownFlag[2 + 18 + 19 * 19] |= 0x10  // the 21st node's flags
        for bytes in [Array(good.dropLast()), good + [0], unknownFlag, [2] + good.dropFirst()] {
            _ = expectError(.invalidInput) { _ = try RevisionTree(decoding: bytes) }
            _ = expectError(.invalidInput) { _ = try bytes.withUnsafeBufferPointer { try RevisionTree.winner(encoded: $0) } }
        }
    }

    @Test("Damaged bytes of a history give the same winner or the same refusal, walked or decoded")
    func damagedHistoriesAreReadAlikeWalkedOrDecoded() throws {
        var random = SplitMix64.fromEnvironmentOrRandom()
        let seed = random.seed
        for _ in 0..<3000 {
            var tree = RevisionTree()
            var parent: RevisionID?
            let first = Int.random(in: 1...3, using: &random)
            for generation in first..<(first + Int.random(in: 2...24, using: &random)) {
                let hash = (0..<32).map { _ in "0123456789abcdef".randomElement(using: &random)! }
                let revision = RevisionID(generation: generation, hash: String(hash))
                try tree.merge(path: [revision] + (parent.map { [$0] } ?? []), deleted: Bool.random(using: &random))
                parent = revision
            }
            var bytes = tree.encoded()
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                case 1: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 2: bytes.remove(at: at)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
                }
                if bytes.isEmpty { bytes = [1] }
            }
            let decoded = Result { try RevisionTree(decoding: bytes).winner }
            let walked = Result { try bytes.withUnsafeBufferPointer { try RevisionTree.winner(encoded: $0) } }
            switch (decoded, walked) {
            case (.success(let left), .success(let right)): #expect(left == right, "\(bytes), seed \(seed)")
            case (.failure, .failure): continue
            default: Issue.record("decoded \(decoded), walked \(walked) for \(bytes), seed \(seed)")
            }
        }
    }

    /// Expects each tree's winner, and its text, read from the tree's bytes to be the decoded tree's.
    private func expectWinnersReadFromBytes(of trees: [RevisionTree]) throws {
        for tree in trees {
            let bytes = tree.encoded()
            let read = try bytes.withUnsafeBufferPointer { try RevisionTree.winner(encoded: $0) }
            #expect(read == tree.winner, "\(tree)")
            let text = try bytes.withUnsafeBufferPointer { try RevisionTree.withWinnerText(encoded: $0) { String(decoding: $0, as: UTF8.self) } }
            #expect(text == tree.winner?.description, "\(tree)")
        }
    }

    @Test func aDamagedOneRevisionTreeGivesNoWinner() throws {
        let good = RevisionTree.encodedFirstRevision(hash: "967a00dff5e02add41819138abb3284d", deleted: false)
        var unknownFlag = good
        unknownFlag[2] |= 0x10
        var withParent = good
        withParent[2] |= 0x04
        for bytes in [Array(good.dropLast()), good + [0], unknownFlag, withParent, [1, 1, 0x02, 0, 1, 0x61], [1, 1, 0x02, 1, 2, 0xC3, 0x28]] {
            _ = expectError(.invalidInput) { _ = try bytes.withUnsafeBufferPointer { try RevisionTree.winner(encoded: $0) } }
            _ = expectError(.invalidInput) {
                _ = try bytes.withUnsafeBufferPointer { try RevisionTree.withWinnerText(encoded: $0) { $0.count } }
            }
        }
    }

    @Test("A tree with 32-byte hashes that are not hex encodes to a fixed point (a crasher of the revision fuzzer)")
    func thirtyTwoByteTextHashesKeepATotalOrder() throws {
        let input = "AQQAAQsAAAsAAAAAAAAAAAAcIAFEZWZhdWx0SW5kaQwMDDMAAAAAACQADAwMDAAAQwEACwAACwAAAAAMDAw3nQEAAAAAAAAMDAwAAEMBAAAAAAA4"
        // Its nodes are in the old, broken order: still read, and stored in the current order from then on.
        let tree = try RevisionTree(decoding: Array(try #require(Data(base64Encoded: input))))
        #expect(tree.count == 4)
        let encoded = tree.encoded()
        let again = try RevisionTree(decoding: encoded)
        #expect(again == tree)
        #expect(again.encoded() == encoded)
        // The order is total and transitive over every form of hash: lowercase and uppercase hex, 32 bytes of
        // text, shorter text.
        let hashes = [
            "000b000000000c0c0c379d0100000000", "000B000000000C0C0C379D0100000000", "\u{1}DefaultIndi\u{C}\u{C}\u{C}3\0\0\0\0\0$\0\u{C}\u{C}\u{C}\u{C}\0\0C\u{1}\0",
            "\u{C}\u{C}\0\0C\u{1}\0\0\0\0\08", "ffffffffffffffffffffffffffffffff", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "abc", "\0",
        ]
        let revisions = hashes.map { RevisionID(generation: 29, hash: $0) }
        for a in revisions {
            #expect(!(a < a))
            for b in revisions where a != b {
                #expect((a < b) != (b < a), "\(a) \(b)")
                for c in revisions where a < b && b < c { #expect(a < c, "\(a) < \(b) < \(c)") }
            }
        }
    }
}
