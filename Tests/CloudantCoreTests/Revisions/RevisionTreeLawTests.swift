import CloudantCore
import PropertyBased
import Testing

/// One replicated write: a history, newest first, and whether its newest revision is a deletion.
struct ReplicatedWrite: Sendable, Hashable, CustomStringConvertible {
    var path: [RevisionID]
    var deleted: Bool

    var description: String {
        path.reversed().map(\.description).joined(separator: " ") + (deleted ? "*" : "")
    }
}

/// Peers that share one true history (a random tree, sometimes with two roots) and each send part of it:
/// the history of one of its revisions, cut to a random length as `_revisions` or a lone `_rev` would be.
/// Revisions branch from a small shared tree, so merged writes really conflict.
struct Scenario: Sendable, CustomStringConvertible {
    var writes: [ReplicatedWrite]

    var description: String { writes.map { "[\($0)]" }.joined(separator: ", ") }

    static let generator = Generator<Scenario, Shrink.None<Scenario>>(run: { rng in random(using: &rng) })

    static func random(using rng: inout some RandomNumberGenerator) -> Scenario {
        var truth: [(revision: RevisionID, parent: Int?, deleted: Bool)] = []
        func hash(_ serial: Int, using rng: inout some RandomNumberGenerator) -> String {
            // A random letter first, so that siblings' hash order (and with it the winner) varies.
            let letter = ["a", "b", "c", "d", "e", "f"].randomElement(using: &rng) ?? "a"
            return letter + String(serial)
        }
        for _ in 0..<Int.random(in: 1...2, using: &rng) {
            let revision = RevisionID(generation: 1, hash: hash(truth.count, using: &rng))
            truth.append((revision, nil, Int.random(in: 0..<5, using: &rng) == 0))
        }
        for _ in 0..<Int.random(in: 2...24, using: &rng) {
            // Mostly extend recent revisions so histories grow deep; sometimes branch anywhere.
            let lowest = Bool.random(using: &rng) ? 0 : max(0, truth.count - 3)
            let parent = Int.random(in: lowest..<truth.count, using: &rng)
            let revision = RevisionID(
                generation: truth[parent].revision.generation + 1, hash: hash(truth.count, using: &rng))
            truth.append((revision, parent, Int.random(in: 0..<5, using: &rng) == 0))
        }

        var writes: [ReplicatedWrite] = []
        for _ in 0..<Int.random(in: 3...7, using: &rng) {
            let newest = Int.random(in: 0..<truth.count, using: &rng)
            var path: [RevisionID] = []
            var next: Int? = newest
            while let index = next {
                path.append(truth[index].revision)
                next = truth[index].parent
            }
            let kept = Int.random(in: 1...path.count, using: &rng)
            writes.append(ReplicatedWrite(path: Array(path.prefix(kept)), deleted: truth[newest].deleted))
        }
        return Scenario(writes: writes)
    }
}

extension RevisionTree {
    /// The tree after merging `writes` in order, without stemming.
    func merging(_ writes: some Sequence<ReplicatedWrite>) throws -> RevisionTree {
        var tree = self
        for write in writes { try tree.merge(path: write.path, deleted: write.deleted) }
        return tree
    }
}

/// Merge laws (idempotent, commutative, associative) for replicated writes. They hold while nothing is stemmed:
/// stemming forgets history, so an old revision sent after its descendants were stemmed comes back as a new
/// root, which `stemmedHistoryComesBackAsADisjointRoot` covers.
@Suite("Revision tree: merge laws")
struct RevisionTreeLawTests {
    @Test func scenariosReallyProduceConflictsDisjointRootsAndTombstones() throws {
        // Guards the generator: laws checked only on conflict-free linear histories would prove little.
        var rng = SystemRandomNumberGenerator()
        var (conflicted, disjoint, tombstoned) = (0, 0, 0)
        for _ in 0..<400 {
            let tree = try RevisionTree().merging(Scenario.random(using: &rng).writes)
            if tree.leaves.count > 1 { conflicted += 1 }
            if tree.roots.count > 1 { disjoint += 1 }
            if tree.leafNodes.contains(where: { $0.deleted }) { tombstoned += 1 }
        }
        #expect(conflicted >= 100 && disjoint >= 40 && tombstoned >= 40)
    }

    @Test func mergingAPathTwiceIsTheSameAsMergingItOnce() async throws {
        await propertyCheck(count: 300, input: Scenario.generator) { scenario in
            let base = try RevisionTree().merging(scenario.writes.dropLast())
            guard let write = scenario.writes.last else { return }
            var once = base
            try once.merge(path: write.path, deleted: write.deleted)
            var twice = once
            let second = try twice.merge(path: write.path, deleted: write.deleted)
            #expect(twice == once, "\(scenario)")
            #expect(second.outcome == .alreadyKnown && !second.changed && !second.needsBody, "\(scenario)")
            #expect(try RevisionTree().merging(scenario.writes + scenario.writes) == once.merging([]), "\(scenario)")
        }
    }

    @Test func mergingTwoPathsInEitherOrderGivesTheSameTree() async throws {
        await propertyCheck(count: 300, input: Scenario.generator) { scenario in
            let writes = scenario.writes
            let base = try RevisionTree().merging(writes.dropLast(2))
            let (first, second) = (writes[writes.count - 2], writes[writes.count - 1])
            let oneWay = try base.merging([first, second])
            let otherWay = try base.merging([second, first])
            #expect(oneWay == otherWay, "\(scenario)\n\(oneWay)\n\(otherWay)")
            #expect(oneWay.winner == otherWay.winner)
            #expect(oneWay.conflicts == otherWay.conflicts)
            #expect(oneWay.encoded() == otherWay.encoded())
        }
    }

    @Test func mergingThreePathsInAnyOrderGivesTheSameTree() async throws {
        await propertyCheck(count: 200, input: Scenario.generator) { scenario in
            let writes = scenario.writes
            let base = try RevisionTree().merging(writes.dropLast(3))
            let (a, b, c) = (writes[writes.count - 3], writes[writes.count - 2], writes[writes.count - 1])
            let expected = try base.merging([a, b, c])
            for order in [[a, c, b], [b, a, c], [b, c, a], [c, a, b], [c, b, a]] {
                #expect(try base.merging(order) == expected, "\(scenario)")
            }
            // Grouping does not matter either: merging (a then b) into a tree that already has c.
            #expect(try base.merging([c]).merging([a, b]) == expected, "\(scenario)")
        }
    }

    @Test func mergingEveryWriteInReverseGivesTheSameTree() async throws {
        await propertyCheck(count: 200, input: Scenario.generator) { scenario in
            let forward = try RevisionTree().merging(scenario.writes)
            let backward = try RevisionTree().merging(scenario.writes.reversed())
            #expect(forward == backward, "\(scenario)\n\(forward)\n\(backward)")
        }
    }

    /// ``RevisionTree/winningNode`` decides most trees from the greatest revision alone; ranking every leaf
    /// must agree with it on any tree, deleted and conflicted ones included.
    @Test func theWinnerIsTheBestOfEveryLeafRanked() async throws {
        await propertyCheck(count: 300, input: Scenario.generator) { scenario in
            let tree = try RevisionTree().merging(scenario.writes)
            let ranked = tree.leafNodes
            #expect(tree.winningNode == ranked.first, "\(scenario)")
            #expect(tree.isDeleted == ranked.allSatisfy(\.deleted), "\(scenario)")
        }
    }

    @Test func encodingRoundTripsAnyMergedTree() async throws {
        await propertyCheck(count: 200, input: Scenario.generator) { scenario in
            var tree = try RevisionTree().merging(scenario.writes)
            if scenario.writes.count.isMultiple(of: 2) { tree.markBodiesMissingExceptLeaves() }
            #expect(try RevisionTree(decoding: tree.encoded()) == tree, "\(scenario)")
        }
    }

    @Test func stemmingKeepsWhatLeavesNeedAndNothingElse() async throws {
        await propertyCheck(count: 200, input: Scenario.generator, Gen.int(in: 1...4)) { scenario, limit in
            let tree = try RevisionTree().merging(scenario.writes)
            var stemmed = tree
            let removed = stemmed.stem(to: limit)
            #expect(stemmed.leaves == tree.leaves, "\(scenario)")
            #expect(stemmed.winner == tree.winner)
            #expect(Set(removed).union(stemmed.allRevisions) == Set(tree.allRevisions))
            // Each leaf keeps its newest `limit` revisions …
            for leaf in tree.leaves {
                let needed = tree.ancestry(of: leaf).prefix(limit)
                #expect(stemmed.ancestry(of: leaf).prefix(limit) == needed, "\(scenario) limit \(limit)")
            }
            // … and every revision kept is among the newest `limit` of some leaf's history. (A history can
            // still reach further back through an ancestor a shorter sibling needs, as in CouchDB.)
            let needed = Set(tree.leaves.flatMap { tree.ancestry(of: $0).prefix(limit) })
            #expect(Set(stemmed.allRevisions) == needed, "\(scenario) limit \(limit)")
            var again = stemmed
            #expect(again.stem(to: limit).isEmpty)
            #expect(again == stemmed)
        }
    }
}
