import CloudantCore
import Testing

@Suite("Revision tree: replicated merge")
struct RevisionTreeMergeTests {
    @Test func mergingIntoAnEmptyTreeIsANewLeaf() throws {
        var tree = RevisionTree()
        let result = try tree.merge("1-a 2-b 3-c")
        #expect(result.outcome == .newLeaf)
        #expect(result.changed && result.needsBody)
        #expect(tree.winner == rev("3-c"))
        #expect(tree.ancestry(of: rev("3-c")) == revs("3-c 2-b 1-a"))
    }

    @Test func extendingALeafIsANewLeaf() throws {
        var tree = try makeTree("1-a 2-b")
        let result = try tree.merge("1-a 2-b 3-c 4-d")
        #expect(result.outcome == .newLeaf)
        #expect(tree.leaves == [rev("4-d")])
    }

    @Test func addingASiblingIsANewBranch() throws {
        var tree = try makeTree("1-a 2-b 3-c")
        let sibling = try tree.merge("1-a 2-b 3-d")
        let uncle = try tree.merge("1-a 2-x")
        #expect(sibling.outcome == .newBranch)
        #expect(uncle.outcome == .newBranch)
        #expect(tree.leaves.count == 3)
    }

    @Test func mergingAKnownRevisionChangesNothing() throws {
        var tree = try RevisionTreeMergeTests.linear("1-a 2-b 3-c", bodies: "1-a 2-b 3-c")
        for history in ["1-a 2-b 3-c", "1-a 2-b", "1-a", "2-b"] {
            let before = tree
            let result = try tree.merge(history)
            #expect(result.outcome == .alreadyKnown)
            #expect(!result.changed && !result.needsBody)
            #expect(tree == before)
        }
    }

    @Test func pathWithNoKnownRevisionBecomesADisjointRoot() throws {  // `_rev` only
        var tree = try makeTree("1-a 2-b")
        let result = try tree.merge("5-e")
        #expect(result.outcome == .newBranch)
        #expect(tree.roots == revs("1-a 5-e"))
        #expect(tree.winner == rev("5-e"))
        #expect(tree.conflicts == [rev("2-b")])
    }

    @Test func laterFullHistoryReattachesADisjointRoot() throws {  // align by generation
        var tree = try makeTree("3-c")
        let result = try tree.merge("1-a 2-b 3-c 4-d")
        #expect(result.outcome == .newLeaf)
        #expect(tree.roots == [rev("1-a")])
        #expect(tree.ancestry(of: rev("4-d")) == revs("4-d 3-c 2-b 1-a"))
        #expect(try tree == RevisionTreeMergeTests.linear("1-a 2-b 3-c 4-d", bodies: "3-c 4-d"))
    }

    @Test func knownHistoryAboveTheRootReGrowsIt() throws {
        var tree = try makeTree("3-c 4-d")
        let result = try tree.merge("1-a 2-b 3-c 4-d")
        #expect(result.outcome == .alreadyKnown)
        #expect(result.changed && !result.needsBody)
        #expect(tree.roots == [rev("1-a")])
    }

    @Test func childrenAreKeptSortedByHash() throws {
        let tree = try makeTree("1-a 2-m", "1-a 2-c", "1-a 2-x", "1-a 2-B")
        #expect(tree.children(of: rev("1-a")) == revs("2-B 2-c 2-m 2-x"))
    }

    @Test func anAncestorPlaceholderGetsItsBodyWhenMergedItself() throws {
        var tree = try makeTree("1-a 2-b 3-c")
        #expect(tree.node(rev("2-b"))?.bodyAvailable == false)
        let result = try tree.merge("1-a 2-b*")
        #expect(result.outcome == .alreadyKnown)
        #expect(result.changed && result.needsBody)
        #expect(tree.node(rev("2-b"))?.bodyAvailable == true)
        #expect(tree.node(rev("2-b"))?.deleted == true)
    }

    @Test func firstSeenAncestryIsKeptWhenPathsDisagree() throws {
        var tree = try makeTree("1-a 2-b 3-c")
        try tree.merge("1-z 2-y 3-c 4-d")
        #expect(tree.node(rev("3-c"))?.parent == rev("2-b"))
        #expect(tree.node(rev("2-y"))?.parent == rev("1-z"))
        #expect(tree.isLeaf(rev("2-y")))
    }

    @Test func rejectsMalformedPaths() {
        var tree = RevisionTree()
        for path in [[], revs("3-c 1-a"), revs("1-a 2-b"), revs("2-b 1-a 0-z"), revs("0-1")] {
            let error = expectError(.invalidInput) { try tree.merge(path: path, deleted: false, documentID: "doc") }
            #expect(error?.context.field == "_revisions")
            #expect(error?.context.documentID == "doc")
        }
        #expect(tree.isEmpty)
    }

    /// A linear tree from `history` (oldest first) with bodies available exactly for `bodies`.
    static func linear(_ history: String, bodies: String) throws -> RevisionTree {
        var tree = RevisionTree()
        for revision in revs(bodies) {
            try tree.merge(path: Array(revs(history).filter { $0 <= revision }.reversed()), deleted: false)
        }
        return tree
    }
}
