internal import CloudantCore

/// A document's revision tree as the dashboard draws it, from `GET /db/id?open_revs=all&revs=true`: each
/// leaf with its `_revisions` path, merged into a forest (several roots when old revisions were pruned).
struct DashboardRevisionTree {
    private struct Node {
        var rev: String
        var children: [String] = []
        var isLeaf = false
        var isDeleted = false
    }

    private var nodes: [String: Node] = [:]
    private var roots: [String] = []
    /// The leaf CouchDB picks as the winner: live before deleted, then the longest path, then the highest id.
    private(set) var winner: String?

    init(leaves: [JSONValue]) {
        var candidates: [(deleted: Bool, position: Int, hash: String, rev: String)] = []
        for leaf in leaves {
            guard let document = leaf["ok"], let revisions = document["_revisions"],
                let start = revisions["start"]?.numberValue?.int64Value,
                let ids = revisions["ids"]?.arrayValue?.compactMap(\.stringValue), !ids.isEmpty
            else { continue }
            // ids run from the leaf back to the oldest revision kept.
            let path = ids.enumerated().map { "\(Int(start) - $0.offset)-\($0.element)" }.reversed()
            var parent: String?
            for rev in path {
                if nodes[rev] == nil {
                    nodes[rev] = Node(rev: rev)
                    if let parent { nodes[parent]?.children.append(rev) } else { roots.append(rev) }
                }
                parent = rev
            }
            let leafRev = path.last!
            let deleted = document["_deleted"]?.boolValue == true
            nodes[leafRev]?.isLeaf = true
            nodes[leafRev]?.isDeleted = deleted
            candidates.append((deleted, Int(start), ids[0], leafRev))
        }
        winner = candidates.max { a, b in
            if a.deleted != b.deleted { return a.deleted }
            if a.position != b.position { return a.position < b.position }
            return a.hash < b.hash
        }?.rev
    }

    /// The tree as Mustache values for the `node` partial: `rev`, `label`, `state`, `href` and `children`.
    func nodes(winner: String?, shown: String, documentPath: String) -> [[String: Any]] {
        func values(_ rev: String) -> [String: Any] {
            guard let node = nodes[rev] else { return [:] }
            var labels: [String] = []
            var state = "inner"
            if node.isLeaf {
                if rev == winner {
                    state = "winner"
                    labels.append("current")
                } else if node.isDeleted {
                    state = "deleted"
                    labels.append("deleted")
                } else {
                    state = "conflict"
                    labels.append("conflict")
                }
                if node.isDeleted, rev == winner { labels.append("deleted") }
            }
            if rev == shown { labels.append("shown") }
            // Every key is set on every node: Mustache looks a missing one up in the enclosing node.
            return [
                "rev": rev, "state": state, "label": labels.isEmpty ? "" : "(" + labels.joined(separator: ", ") + ")",
                "children": node.children.sorted(by: Self.revisionOrder).map(values), "hasChildren": !node.children.isEmpty,
                "link": node.isLeaf, "href": node.isLeaf ? documentPath + "?rev=" + DashboardAPI.percentEncoded(rev) : "",
            ]
        }
        return roots.sorted(by: Self.revisionOrder).map(values)
    }

    private static func revisionOrder(_ a: String, _ b: String) -> Bool {
        let (x, y) = (a.split(separator: "-", maxSplits: 1), b.split(separator: "-", maxSplits: 1))
        let (p, q) = (Int(x.first ?? "") ?? 0, Int(y.first ?? "") ?? 0)
        return p != q ? p < q : a < b
    }
}
