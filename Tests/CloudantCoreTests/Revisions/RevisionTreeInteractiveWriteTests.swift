import CloudantCore
import Testing

@Suite("Revision tree: interactive writes")
struct RevisionTreeInteractiveWriteTests {
    @Test func newDocumentStartsANewRootAtGenerationOne() throws {
        var tree = RevisionTree()
        let parent = try tree.write("1-a", naming: nil)
        #expect(parent == nil)
        #expect(tree.winner == rev("1-a"))
        #expect(tree.node(rev("1-a"))?.bodyAvailable == true)
    }

    @Test func updatingTheCurrentLeafExtendsIt() throws {
        var tree = RevisionTree()
        try tree.write("1-a", naming: nil)
        let parent = try tree.write("2-b", naming: "1-a")
        #expect(parent == rev("1-a"))
        #expect(tree.leaves == [rev("2-b")])
        #expect(tree.ancestry(of: rev("2-b")) == revs("2-b 1-a"))
    }

    @Test func staleRevisionConflicts() throws {
        var tree = RevisionTree()
        try tree.write("1-a", naming: nil)
        try tree.write("2-b", naming: "1-a")
        let error = expectError(.conflict) {
            _ = try tree.parentForInteractiveWrite(named: rev("1-a"), deleting: false, documentID: "doc")
        }
        #expect(error?.message.hasPrefix("Document update conflict.") == true)
        #expect(error?.context.documentID == "doc")
        #expect(error?.context.revision == "1-a")
    }

    @Test(arguments: ["9-z", "2-zz", "3-c", "2-b"])
    func unknownInternalOrStemmedRevisionConflicts(_ named: String) throws {
        let tree = try makeTree("2-b 3-c 4-d")  // 1-a was stemmed away
        expectError(.conflict) {
            _ = try tree.parentForInteractiveWrite(named: rev(named), deleting: false, documentID: "doc")
        }
        expectError(.conflict) {
            _ = try tree.parentForInteractiveWrite(named: rev("1-a"), deleting: false, documentID: "doc")
        }
    }

    @Test func writingWithoutARevisionToALiveDocumentConflicts() throws {
        let tree = try makeTree("1-a")
        for deleting in [false, true] {
            expectError(.conflict) {
                _ = try tree.parentForInteractiveWrite(named: nil, deleting: deleting, documentID: "doc")
            }
        }
    }

    @Test func losingLeavesCanBeUpdatedAndDeletedToResolveAConflict() throws {
        var tree = try makeTree("1-a 2-b", "1-a 2-c")
        #expect(tree.conflicts == [rev("2-b")])
        try tree.write("3-b", naming: "2-b", deleted: true)
        try tree.write("3-c", naming: "2-c")
        #expect(tree.winner == rev("3-c"))
        #expect(tree.conflicts.isEmpty)
        #expect(tree.deletedConflicts == [rev("3-b")])
    }

    @Test func deletedConflictLeafOfALiveDocumentCanBeExtended() throws {  // any current leaf
        var tree = try makeTree("1-a 2-b", "1-a 2-c*")
        let parent = try tree.write("3-r", naming: "2-c")
        #expect(parent == rev("2-c"))
        #expect(tree.winner == rev("3-r"))
    }

    @Test func recreationAfterDeleteContinuesTheDeletedWinner() throws {
        var tree = RevisionTree()
        try tree.write("1-a", naming: nil)
        try tree.write("2-b", naming: "1-a", deleted: true)
        #expect(tree.isDeleted)
        let parent = try tree.parentForInteractiveWrite(named: nil, deleting: false, documentID: "doc")
        #expect(parent == rev("2-b"))
        try tree.addChild(rev("3-c"), of: parent, deleted: false)
        #expect(tree.winner == rev("3-c"))
        #expect(!tree.isDeleted)
        #expect(tree.ancestry(of: rev("3-c")) == revs("3-c 2-b 1-a"))
    }

    @Test func recreationPicksTheWinningTombstoneAmongSeveral() throws {
        var tree = try makeTree("1-a 2-b 3-c*", "1-a 2-x*", "1-a 2-y 3-z 4-q*")
        let parent = try tree.write("5-n", naming: nil)
        #expect(parent == rev("4-q"))
        #expect(tree.winner == rev("5-n"))
        #expect(tree.deletedConflicts == [rev("3-c"), rev("2-x")])
    }

    @Test func namingAnyRevisionOfADeletedDocumentConflicts() throws {  // CouchDB issue COUCHDB-292
        let tree = try makeTree("1-a 2-b*")
        for (named, deleting) in [("2-b", false), ("2-b", true), ("1-a", false), ("7-q", false)] {
            let error = expectError(.conflict) {
                _ = try tree.parentForInteractiveWrite(named: rev(named), deleting: deleting, documentID: "doc")
            }
            #expect(error?.context.revision == named)
        }
    }

    @Test func deletingADeletedDocumentWithoutARevisionConflicts() throws {
        let tree = try makeTree("1-a 2-b*")
        expectError(.conflict) { _ = try tree.parentForInteractiveWrite(named: nil, deleting: true, documentID: "doc") }
    }

    @Test func deleteWithoutRevisionOfANewIDCreatesAGenerationOneTombstone() throws {
        var tree = RevisionTree()
        let parent = try tree.write("1-t", naming: nil, deleted: true)
        #expect(parent == nil)
        #expect(tree.isDeleted)
        #expect(tree.winner == rev("1-t"))
    }

    @Test func namingARevisionOfADocumentThatDoesNotExistConflicts() {
        for deleting in [false, true] {
            let error = expectError(.conflict) {
                _ = try RevisionTree().parentForInteractiveWrite(named: rev("1-a"), deleting: deleting, documentID: "new")
            }
            #expect(error?.context.documentID == "new")
        }
    }

    @Test func addChildRejectsWritesThatNoLongerFitTheTree() throws {
        var tree = try makeTree("1-a 2-b")
        let wrongGeneration = expectError(.invalidInput) { try tree.addChild(rev("4-x"), of: rev("2-b"), deleted: false) }
        #expect(wrongGeneration?.context.revision == "4-x")
        expectError(.conflict) { try tree.addChild(rev("2-x"), of: rev("1-a"), deleted: false) }  // not a leaf
        expectError(.conflict) { try tree.addChild(rev("3-x"), of: rev("2-q"), deleted: false) }  // unknown
        expectError(.conflict) { try tree.addChild(rev("1-x"), of: nil, deleted: false) }  // tree not empty
        try tree.merge("5-e")
        expectError(.conflict) { try tree.addChild(rev("5-e"), of: rev("4-d"), deleted: false) }  // unknown parent
        #expect(try tree == makeTree("1-a 2-b", "5-e"))
    }
}
