import CloudantCore
import PropertyBased
import Testing

/// The batch merge (all of a document's replicated revisions of one `_bulk_docs` at once) against merging them
/// one at a time: the same tree, the same leaves, and a leaf count that never drifts.
@Suite("Revision tree: batch merge")
struct RevisionTreeBatchMergeTests {
    @Test func aBatchMergeGivesTheTreeThatMergingOneAtATimeGives() async throws {
        await propertyCheck(count: 300, input: Scenario.generator) { scenario in
            let expected = try RevisionTree().merging(scenario.writes)
            var merger = RevisionTree.BatchMerge(RevisionTree())
            for write in scenario.writes { try merger.merge(path: write.path, deleted: write.deleted, maxLeaves: .max) }
            let merged = merger.finish(revsLimit: .max)
            #expect(merged.tree == expected, "\(scenario)")
            #expect(merger.leafCount == expected.leaves.count, "\(scenario)")
            #expect(merged.changed == !expected.isEmpty)
            // Continuing a tree that already holds part of the scenario gives the same tree too.
            var resumed = RevisionTree.BatchMerge(try RevisionTree().merging(scenario.writes.prefix(2)))
            for write in scenario.writes.dropFirst(2) { try resumed.merge(path: write.path, deleted: write.deleted, maxLeaves: .max) }
            #expect(resumed.finish(revsLimit: .max).tree == expected, "\(scenario)")
            #expect(resumed.leafCount == expected.leaves.count, "\(scenario)")
        }
    }

    @Test func stemmingOnceAfterTheBatchKeepsWhatEveryLeafNeeds() async throws {  // CouchDB stems once per batch
        await propertyCheck(count: 200, input: Scenario.generator, Gen.int(in: 1...4)) { scenario, limit in
            var merger = RevisionTree.BatchMerge(RevisionTree())
            for write in scenario.writes { try merger.merge(path: write.path, deleted: write.deleted, maxLeaves: .max) }
            var expected = try RevisionTree().merging(scenario.writes)
            expected.stem(to: limit)
            #expect(merger.finish(revsLimit: limit).tree == expected, "\(scenario) limit \(limit)")
        }
    }

    @Test func aPathThatWouldPassTheLeafBoundIsRefusedWholeAndLeavesNothing() throws {
        var merger = RevisionTree.BatchMerge(RevisionTree())
        for hash in ["a", "b", "c"] { try merger.merge(path: [rev("1-\(hash)")], deleted: false, maxLeaves: 3) }
        let before = merger.tree
        #expect(throws: CloudantError.self) { try merger.merge(path: [rev("1-d")], deleted: false, maxLeaves: 3) }
        #expect(merger.tree == before && merger.leafCount == 3)
        // Extending a leaf adds none, and a path that joins two leaves' histories even removes one.
        try merger.merge(path: revs("2-e 1-a"), deleted: false, maxLeaves: 3)
        #expect(merger.leafCount == 3)
        var stemmed = try makeTree("1-x 2-y 3-z")
        stemmed.stem(to: 1)  // only 3-z is left, as a root
        var joining = RevisionTree.BatchMerge(stemmed)
        try joining.merge(path: [rev("1-x")], deleted: false, maxLeaves: 2)
        #expect(joining.leafCount == 2)
        try joining.merge(path: revs("3-z 2-y 1-x"), deleted: false, maxLeaves: 2)
        #expect(joining.leafCount == 1 && joining.tree.leaves == [rev("3-z")])
    }
}
