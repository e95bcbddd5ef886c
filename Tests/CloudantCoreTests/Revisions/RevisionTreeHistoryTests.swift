import CloudantCore
import Testing

@Suite("Revision tree: history, revs_info, latest and revs_diff")
struct RevisionTreeHistoryTests {
    @Test func ancestryRunsNewestFirstAndIsEmptyForUnknownRevisions() throws {
        let tree = try makeTree("1-a 2-b 3-c", "1-a 2-x")
        #expect(tree.ancestry(of: rev("3-c")) == revs("3-c 2-b 1-a"))
        #expect(tree.ancestry(of: rev("2-x")) == revs("2-x 1-a"))
        #expect(tree.ancestry(of: rev("3-q")).isEmpty)
        #expect(tree.revisionsJSON(for: rev("3-q")) == nil)
    }

    @Test func revisionsListHashesNewestFirstFromTheRevisionsGeneration() throws {
        let tree = try makeTree("1-aa 2-bb 3-cc 4-dd")
        #expect(tree.revisionsJSON(for: rev("4-dd")) == ["start": 4, "ids": ["dd", "cc", "bb", "aa"]])
        #expect(tree.revisionsJSON(for: rev("2-bb")) == ["start": 2, "ids": ["bb", "aa"]])
    }

    @Test func revsInfoReportsAvailableAndDeletedUntilCompactionMakesInternalBodiesMissing() throws {
        var tree = RevisionTree()
        try tree.write("1-a", naming: nil)
        try tree.write("2-b", naming: "1-a", deleted: true)
        try tree.write("3-c", naming: nil)  // recreation
        #expect(tree.revsInfo(for: rev("3-c")).map(\.status) == [.available, .deleted, .available])
        #expect(tree.revsInfo(for: rev("3-c"))[1].json == ["rev": "2-b", "status": "deleted"])
        tree.markBodiesMissingExceptLeaves()
        try tree.write("4-d", naming: "3-c")
        let info = tree.revsInfo(for: rev("4-d"))
        #expect(info.map(\.revision) == revs("4-d 3-c 2-b 1-a"))
        // `couch_db:doc_meta_info`: a body compaction dropped is missing, deletion or not.
        #expect(info.map(\.status) == [.available, .available, .missing, .missing])
        #expect(tree.revsInfo(for: rev("9-z")).isEmpty)
    }

    @Test func latestReturnsTheLeavesDescendingFromARevision() throws {  // open_revs + latest
        let tree = try makeTree("1-a 2-b 3-c 4-d", "1-a 2-b 3-x*", "1-a 2-q")
        #expect(tree.leaves(descendingFrom: rev("3-c")) == [rev("4-d")])
        #expect(tree.leaves(descendingFrom: rev("2-b")) == revs("4-d 3-x"))
        #expect(tree.leaves(descendingFrom: rev("1-a")) == revs("4-d 2-q 3-x"))
        #expect(tree.leaves(descendingFrom: rev("4-d")) == [rev("4-d")])
        #expect(tree.leaves(descendingFrom: rev("5-z")).isEmpty)
    }

    @Test func revsDiffMatchesCouchDBsExample() throws {
        let tree = try makeTree("1-a 2-b")
        let diff = tree.revsDiff(revs("2-b 3-c"))
        #expect(diff.missing == [rev("3-c")])
        #expect(diff.possibleAncestors == [rev("2-b")])
        #expect(diff.json == ["missing": ["3-c"], "possible_ancestors": ["2-b"]])
    }

    @Test func revsDiffCountsInternalRevisionsAsPresent() throws {
        let tree = try makeTree("1-a 2-b 3-c")
        let diff = tree.revsDiff(revs("1-a 2-b 3-c"))
        #expect(diff.isEmpty)
        #expect(diff.possibleAncestors.isEmpty)
    }

    /// CouchDB answers an unknown document with every revision asked, as asked (repeats included).
    @Test func revsDiffForAnUnknownDocumentHasNoPossibleAncestors() {
        let diff = RevisionTree().revsDiff(revs("1-q 2-r 1-q"))
        #expect(diff.missing == revs("1-q 2-r 1-q"))
        #expect(diff.possibleAncestors.isEmpty)
        #expect(diff.json == ["missing": ["1-q", "2-r", "1-q"]])
    }

    @Test func possibleAncestorsAreLeavesBelowTheHighestMissingGeneration() throws {
        let tree = try makeTree("1-a 2-b 3-c 4-d", "1-a 2-x", "1-a 2-b 3-y*")
        #expect(tree.revsDiff(revs("4-n")).possibleAncestors == revs("2-x 3-y"))
        #expect(tree.revsDiff(revs("3-n 5-m")).possibleAncestors == revs("4-d 2-x 3-y"))
        #expect(tree.revsDiff(revs("2-n")).possibleAncestors.isEmpty)
    }
}
