import CloudantCore
import Testing

@Suite("Revision tree: stemming")
struct RevisionTreeStemmingTests {
    @Test func stemmingKeepsTheNewestRevisionsAndTheirGenerations() throws {
        var tree = try makeTree("1-a 2-b 3-c 4-d 5-e")
        let removed = tree.stem(to: 3)
        #expect(removed == revs("2-b 1-a"))
        #expect(tree.roots == [rev("3-c")])
        #expect(tree.ancestry(of: rev("5-e")) == revs("5-e 4-d 3-c"))
        #expect(tree.revisionsJSON(for: rev("5-e")) == ["start": 5, "ids": ["e", "d", "c"]])
    }

    /// One unbroken history (most documents) is stemmed without the general computation; it must give what
    /// the general one gives. Beside a lone leaf of the newest generation (a second root, so the tree is no
    /// longer one history) the general computation runs and keeps that leaf: everything else must agree.
    @Test func oneUnbrokenHistoryIsStemmedAsTheGeneralComputationStemsIt() throws {
        for length in 1...24 {
            let history = (1...length).map { "\($0)-c\($0)" }.joined(separator: " ")
            for limit in 1...(length + 2) {
                var single = try makeTree(history)
                var beside = try makeTree(history, "\(length)-lone")
                let lone = rev("\(length)-lone")
                let removed = single.stem(to: limit)
                #expect(removed == beside.stem(to: limit), "length \(length) limit \(limit)")
                #expect(single.allRevisions == beside.allRevisions.filter { $0 != lone }, "length \(length) limit \(limit)")
                #expect(single.roots == beside.roots.filter { $0 != lone }, "length \(length) limit \(limit)")
                let leaf = rev("\(length)-c\(length)")
                #expect(single.ancestry(of: leaf) == beside.ancestry(of: leaf))
                #expect(single.ancestry(of: leaf).count == min(length, limit))
                #expect(removed.count == max(0, length - limit) && removed == removed.sorted(by: >))
                #expect(try RevisionTree(decoding: single.encoded()) == single)
            }
        }
    }

    @Test func stemmingWithinTheLimitChangesNothing() throws {
        var tree = try makeTree("1-a 2-b 3-c", "1-a 2-x")
        let before = tree
        #expect(tree.stem(to: 3).isEmpty)
        #expect(tree == before)
    }

    @Test func aRevisionKeptForOneBranchKeepsItsLinksToTheOthers() throws {
        // 1-a is within two revisions of leaf 2-x, so it stays, and so does its link to 2-b: 3-c's history
        // reaches back three revisions (`couch_key_tree:stem/2` since CouchDB 2.2; the older "cut each path
        // to two, re-merge" cut the 1-a → 2-b link and made 2-b a root).
        var tree = try makeTree("1-a 2-b 3-c", "1-a 2-x")
        #expect(tree.stem(to: 2).isEmpty)
        #expect(tree.roots == revs("1-a"))
        #expect(tree.children(of: rev("1-a")) == revs("2-b 2-x"))
        #expect(tree.ancestry(of: rev("3-c")) == revs("3-c 2-b 1-a"))
        #expect(tree.leaves == revs("3-c 2-x"))
    }

    @Test func aRevisionWhoseParentIsRemovedBecomesARoot() throws {
        // Limit 3: 2-b is three from its nearest leaf (5-e) and goes; 1-a stays for 3-y, two below it.
        var tree = try makeTree("1-a 2-b 3-c 4-d 5-e", "1-a 2-x 3-y")
        #expect(tree.stem(to: 3) == revs("2-b"))
        #expect(tree.roots == revs("1-a 3-c"))
        #expect(tree.ancestry(of: rev("5-e")) == revs("5-e 4-d 3-c"))
        #expect(tree.ancestry(of: rev("3-y")) == revs("3-y 2-x 1-a"))
    }

    @Test func stemmingToOneKeepsOnlyLeaves() throws {
        var tree = try makeTree("1-a 2-b 3-c", "1-a 2-x*")
        tree.stem(to: 0)  // treated as 1
        #expect(tree.allRevisions == revs("2-x 3-c"))
        #expect(tree.roots == revs("2-x 3-c"))
        #expect(tree.winner == rev("3-c"))
        #expect(tree.deletedConflicts == [rev("2-x")])
    }

    @Test func interactiveWritesStemWithTheirRevsLimit() throws {
        var tree = RevisionTree()
        try tree.write("1-a", naming: nil, revsLimit: 2)
        try tree.write("2-b", naming: "1-a", revsLimit: 2)
        let parent = try tree.parentForInteractiveWrite(named: rev("2-b"), deleting: false, documentID: "doc")
        let stemmed = try tree.addChild(rev("3-c"), of: parent, deleted: false, revsLimit: 2)
        #expect(stemmed == [rev("1-a")])
        #expect(tree.allRevisions == revs("2-b 3-c"))
    }

    @Test func stemmedHistoryComesBackAsADisjointRoot() throws {  // edge case
        var tree = try makeTree("1-a 2-b 3-c", revsLimit: 2)
        #expect(tree.allRevisions == revs("2-b 3-c"))
        #expect(tree.revsDiff(revs("1-a")).missing == revs("1-a"))  // forgotten, so a peer sends it again

        // An old branch off the forgotten 1-a arrives: it cannot be aligned and forms its own root.
        let result = try tree.merge("1-a 2-x", revsLimit: 2)
        #expect(result.outcome == .newBranch)
        #expect(tree.roots == revs("1-a 2-b"))
        #expect(tree.winner == rev("3-c"))
        #expect(tree.conflicts == [rev("2-x")])

        // The forgotten revision alone comes back as a conflicting leaf of its own.
        var other = try makeTree("1-a 2-b 3-c", revsLimit: 2)
        try other.merge("1-a", revsLimit: 2)
        #expect(other.roots == revs("1-a 2-b"))
        #expect(other.conflicts == [rev("1-a")])
    }

    @Test func mergeReGrowsHistoryAndStemsItAgainWithoutReportingNewRevisions() throws {
        var tree = try makeTree("3-c 4-d", revsLimit: 2)
        let result = try tree.merge("1-a 2-b 3-c 4-d 5-e", revsLimit: 2)
        #expect(result.outcome == .newLeaf)
        #expect(result.stemmed == [rev("3-c")])  // 1-a and 2-b were added and cut again by the same merge
        #expect(tree.allRevisions == revs("4-d 5-e"))
        #expect(tree.roots == [rev("4-d")])
    }

    @Test func mergingAKnownPathAgainUnderTheSameLimitIsANoOp() throws {
        var tree = try makeTree("1-a 2-b 3-c 4-d", revsLimit: 2)
        let before = tree
        let result = try tree.merge("1-a 2-b 3-c 4-d", revsLimit: 2)
        #expect(result.outcome == .alreadyKnown)
        #expect(!result.changed)
        #expect(result.stemmed.isEmpty)
        #expect(tree == before)
    }
}
