import CloudantCore
import Testing

@Suite("Revision tree: winner and conflicts")
struct RevisionTreeWinnerTests {
    @Test func emptyTreeHasNoWinnerAndIsNotDeleted() {
        let tree = RevisionTree()
        #expect(tree.isEmpty)
        #expect(tree.winner == nil)
        #expect(!tree.isDeleted)
        #expect(tree.leaves.isEmpty && tree.conflicts.isEmpty && tree.deletedConflicts.isEmpty)
    }

    @Test func winnerIsDeterministicWhenBranchesTieOnGeneration() throws {
        let oneWay = try makeTree("1-a 2-b", "1-a 2-c")
        let otherWay = try makeTree("1-a 2-c", "1-a 2-b")
        #expect(oneWay.winner == rev("2-c"))
        #expect(otherWay.winner == rev("2-c"))
        #expect(oneWay.conflicts == [rev("2-b")])
    }

    @Test func tieOnGenerationIsBrokenByHashBytes() throws {
        let hexWins = try makeTree(
            "1-a 2-7051cbe5c8faecd085a3fa619e6e6337", "1-a 2-70f0000000000000000000000000000a")
        #expect(hexWins.winner == rev("2-70f0000000000000000000000000000a"))
        #expect(try makeTree("1-a 2-Z", "1-a 2-a").winner == rev("2-a"))
    }

    @Test func higherGenerationWins() throws {
        let tree = try makeTree("1-a 2-z", "1-a 2-b 3-a")
        #expect(tree.winner == rev("3-a"))
        #expect(tree.conflicts == [rev("2-z")])
    }

    @Test func deepDeletedBranchLosesToShallowLiveOne() throws {  // any live leaf beats every deleted one
        let tree = try makeTree("1-a 2-b 3-c 4-d 5-e*", "1-a 2-x")
        #expect(tree.winner == rev("2-x"))
        #expect(!tree.isDeleted)
        #expect(tree.conflicts.isEmpty)
        #expect(tree.deletedConflicts == [rev("5-e")])
    }

    @Test func documentIsDeletedWhenEveryLeafIs() throws {
        let tree = try makeTree("1-a 2-b*", "1-a 2-c 3-d*")
        #expect(tree.isDeleted)
        #expect(tree.winner == rev("3-d"))
        #expect(tree.winningNode?.deleted == true)
        #expect(tree.conflicts.isEmpty)
        #expect(tree.deletedConflicts == [rev("2-b")])
    }

    @Test func conflictsAndDeletedConflictsAreOrderedBestFirst() throws {
        let tree = try makeTree(
            "1-a 2-b 3-c", "1-a 2-e", "1-a 2-y*", "1-a 2-w 3-q*", "1-a 2-z", "1-a 2-d 3-d 4-d*")
        #expect(tree.winner == rev("3-c"))
        #expect(tree.conflicts == [rev("2-z"), rev("2-e")])
        #expect(tree.deletedConflicts == [rev("4-d"), rev("3-q"), rev("2-y")])
        #expect(tree.leaves == [rev("3-c"), rev("2-z"), rev("2-e"), rev("4-d"), rev("3-q"), rev("2-y")])
    }

    @Test func leavesIncludeTombstonesWithTheirFlags() throws {  // open_revs=all
        let tree = try makeTree("1-a 2-b", "1-a 2-c*")
        #expect(tree.leafNodes.map(\.revision) == [rev("2-b"), rev("2-c")])
        #expect(tree.leafNodes.map(\.deleted) == [false, true])
    }

    @Test func nodeQueriesDescribeTheTree() throws {
        let tree = try makeTree("1-a 2-b 3-c", "1-a 2-x")
        #expect(tree.count == 4)
        #expect(tree.contains(rev("2-b")) && !tree.contains(rev("2-q")))
        #expect(tree.isLeaf(rev("3-c")) && !tree.isLeaf(rev("2-b")) && !tree.isLeaf(rev("9-z")))
        #expect(tree.node(rev("2-b"))?.parent == rev("1-a"))
        #expect(tree.node(rev("3-c"))?.bodyAvailable == true)
        #expect(tree.node(rev("2-b"))?.bodyAvailable == false)  // known only as an ancestor
        #expect(tree.roots == [rev("1-a")])
        #expect(tree.children(of: rev("1-a")) == [rev("2-b"), rev("2-x")])
        #expect(tree.allRevisions == revs("1-a 2-b 2-x 3-c"))
        #expect(tree.description == "1-a?(2-b?(3-c), 2-x)")
    }
}
