// Fuzz target: revision ids, `_revisions` histories and stored revision trees (CloudantCore/Revisions).
//
// An input is read three ways. Invariants:
// - as text, a revision id: an accepted one has a generation in 0…maximumGeneration and a non-empty hash,
//   and its description parses back to an equal revision with the same description (a fixed point); a
//   refused one is a `CloudantError` `invalidInput` on field `_rev`;
// - as the bytes of a stored revision tree: decoding never traps; a decoded tree encodes to bytes that
//   decode to an equal tree and encode to the same bytes again;
// - as JSON, a document or an array of documents written with `new_edits=false`: their `_revisions` merge
//   into one tree without trapping (or are refused with a `CloudantError`), every merged path is in the
//   tree, the tree survives encoding, and merging the same paths in the reverse order gives the same
//   tree with the same winner (merging is commutative) when the paths agree on every revision's parent.

import CloudantCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRevision(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let text = String(validating: bytes, as: UTF8.self) { checkRevisionText(text) }
    checkStoredTree(bytes)
    if let json = try? JSONValue(parsing: bytes) { checkReplicatedWrites(json) }
    return keepInput
}

private func checkRevisionText(_ text: String) {
    let revision: RevisionID
    do {
        revision = try RevisionID(parsing: text)
    } catch let error as CloudantError {
        require(error.code == .invalidInput && error.context.field == "_rev", "a refused revision is invalidInput on _rev")
        require(RevisionID(text) == nil, "RevisionID(_:) refuses what init(parsing:) refuses")
        return
    } catch {
        require(false, "a refused revision throws CloudantError, not \(type(of: error))")
        return
    }
    require(revision.generation >= 0 && revision.generation <= RevisionID.maximumGeneration, "the generation is in range")
    require(!revision.hash.isEmpty, "the hash is not empty")
    guard let again = try? RevisionID(parsing: revision.description) else {
        require(false, "a parsed revision's description parses back")
        return
    }
    require(again == revision, "a parsed revision's description parses back to an equal revision")
    require(again.description == revision.description, "a revision's description is a fixed point")
    require(!(again < revision) && !(revision < again), "ordering agrees with equality")
}

private func checkStoredTree(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let tree = try? RevisionTree(decoding: bytes) else { return }
    let encoded = tree.encoded()
    guard let again = try? RevisionTree(decoding: encoded) else {
        require(false, "an encoded tree decodes")
        return
    }
    require(again == tree, "an encoded tree decodes to an equal tree")
    require(again.encoded() == encoded, "encoding a decoded tree is a fixed point")
    require(again.winner == tree.winner, "the winner survives encoding")
}

private func checkReplicatedWrites(_ json: JSONValue) {
    let objects: [JSONObject] =
        switch json {
        case .object(let object): [object]
        case .array(let items): items.compactMap(\.objectValue)
        default: []
        }
    var paths: [(path: [RevisionID], deleted: Bool)] = []
    for object in objects {
        guard let document = try? IncomingDocument(object) else { continue }
        if let revisions = document.revisions {
            require(!revisions.isEmpty, "_revisions holds at least one revision")
            for (offset, revision) in revisions.enumerated() {
                require(revision.generation == revisions[0].generation - offset, "_revisions generations are consecutive")
                require(revision.generation >= 1 && revision.generation <= RevisionID.maximumGeneration, "_revisions generations are in range")
            }
            paths.append((revisions, document.deleted))
        } else if let rev = document.rev, rev.generation >= 1 {
            paths.append(([rev], document.deleted))
        }
    }
    guard !paths.isEmpty else { return }

    func merged(_ order: [(path: [RevisionID], deleted: Bool)]) -> RevisionTree {
        var tree = RevisionTree()
        for (path, deleted) in order {
            do {
                try tree.merge(path: path, deleted: deleted)
            } catch let error as CloudantError {
                require(error.code == .invalidInput, "a refused path is invalidInput, not \(error.code)")
            } catch {
                require(false, "a refused path throws CloudantError, not \(type(of: error))")
            }
        }
        return tree
    }
    let forward = merged(paths)
    // Every path was validated by IncomingDocument, so every merge is accepted; without stemming (all paths
    // together shorter than the revs limit) every head stays in the tree.
    if paths.reduce(0, { $0 + $1.path.count }) < RevisionTree.defaultRevsLimit {
        for (path, _) in paths { require(forward.contains(path[0]), "every merged path's head is in the tree") }
    }
    // Commutativity holds for histories that agree with each other. Two paths that give one revision two
    // different parents cannot come from CouchDB (a revision id hashes its parent's), only from a forged
    // history; the tree keeps the ancestry it learnt first (the README's limits say so), and order matters.
    // The same holds for one revision written both as a deletion and not (its id hashes that flag too).
    var parents: [RevisionID: RevisionID] = [:]
    var deletions: [RevisionID: Bool] = [:]
    var consistent = true
    for (path, deleted) in paths {
        if let known = deletions.updateValue(deleted, forKey: path[0]), known != deleted { consistent = false }
        for (child, parent) in zip(path, path.dropFirst()) {
            if let known = parents.updateValue(parent, forKey: child), known != parent { consistent = false }
        }
    }
    if consistent {
        let backward = merged(paths.reversed())
        require(forward == backward, "merging paths in either order gives the same tree")
        require(forward.winner == backward.winner, "merging paths in either order picks the same winner")
    }
    if let decoded = try? RevisionTree(decoding: forward.encoded()) {
        require(decoded == forward, "a merged tree survives encoding")
    } else {
        require(false, "a merged tree's encoding decodes")
    }
}
