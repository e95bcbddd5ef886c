import CloudantCore
import Testing

@Suite("Revision tree: compaction and purge")
struct RevisionTreeMaintenanceTests {
    @Test func compactionReleasesInternalBodiesAndKeepsLeafBodies() throws {
        var tree = RevisionTree()
        try tree.write("1-a", naming: nil)
        try tree.write("2-b", naming: "1-a")
        try tree.write("3-c", naming: "2-b")
        try tree.merge("1-a 2-x")
        #expect(tree.markBodiesMissingExceptLeaves() == revs("2-b 1-a"))
        #expect(tree.leafNodes.allSatisfy { $0.bodyAvailable })
        #expect(tree.node(rev("1-a"))?.bodyAvailable == false)
        #expect(tree.markBodiesMissingExceptLeaves().isEmpty)  // nothing left to release
        #expect(tree.winner == rev("3-c"))
    }

    @Test func purgeRemovesALeafAndTheAncestorsOnlyItNeeded() throws {
        var tree = try makeTree("1-a 2-b 3-c", "1-a 2-b 3-x 4-y")
        #expect(tree.purge([rev("4-y")]) == [rev("4-y")])
        #expect(try tree == makeTree("1-a 2-b 3-c"))
    }

    @Test func purgeKeepsAncestorsSharedWithRemainingLeaves() throws {
        var tree = try makeTree("1-a 2-b 3-c", "1-a 2-x")
        tree.purge([rev("3-c")])
        // 2-b was needed only by 3-c and goes with it (it does not become a leaf); 1-a stays for 2-x.
        #expect(tree.allRevisions == revs("1-a 2-x"))
        #expect(tree.leaves == [rev("2-x")])
    }

    @Test func purgeIgnoresInternalAndUnknownRevisions() throws {
        var tree = try makeTree("1-a 2-b 3-c")
        let before = tree
        #expect(tree.purge(revs("2-b 1-a 9-z")).isEmpty)
        #expect(tree == before)
    }

    @Test func purgingALosingConflictChangesTheLeavesButNotTheWinner() throws {
        var tree = try makeTree("1-a 2-b 3-c", "1-a 2-x")
        #expect(tree.purge([rev("2-x")]) == [rev("2-x")])
        #expect(tree.conflicts.isEmpty)
        #expect(tree.winner == rev("3-c"))
    }

    @Test func purgingEveryLeafEmptiesTheTree() throws {
        var tree = try makeTree("1-a 2-b 3-c", "1-a 2-x*", "4-q")
        #expect(tree.purge(revs("3-c 2-x 4-q")) == revs("4-q 3-c 2-x"))
        #expect(tree.isEmpty)
        #expect(tree.winner == nil)
    }
}
