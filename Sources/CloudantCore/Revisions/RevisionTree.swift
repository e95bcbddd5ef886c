/// The revision history of one document: a forest of revisions.
///
/// Each node is a revision with its parent, whether it is a deletion and whether its body is still
/// stored. A node without children is a *leaf*; a document with several leaves is in conflict, and the
/// leaves decide the winning revision. Stemming can cut a history so it starts above
/// generation 1, and history that comes back after being stemmed can form a separate root.
///
/// Writes come in two kinds. An interactive write (`new_edits=true`) asks
/// ``parentForInteractiveWrite(named:deleting:documentID:)`` which leaf it may extend, mints the new
/// revision from that parent and calls ``addChild(_:of:deleted:revsLimit:documentID:)``. A replicated
/// write (`new_edits=false`) calls ``merge(path:deleted:revsLimit:documentID:)`` with the path from
/// `_revisions`, which never conflicts.
///
/// ```swift
/// var tree = RevisionTree()
/// let parent = try tree.parentForInteractiveWrite(named: nil, deleting: false, documentID: "task-1")
/// let first = RevisionID(generation: 1, hash: "967a00dff5e02add41819138abb3284d")
/// try tree.addChild(first, of: parent, deleted: false)
/// tree.winner        // 1-967a00dff5e02add41819138abb3284d
/// tree.conflicts     // []
/// ```
///
/// A revision id names at most one node. A revision's hash covers its parent, so two histories
/// never disagree about a revision's parent; should a peer send one that does, the ancestry seen first
/// is kept. Equality is structural: two trees are equal when they hold the same revisions with the same
/// parents and flags, whatever order they were built in. The tree is a value: copies never share edits.
public struct RevisionTree: Sendable, Hashable {
    /// What the tree records about one revision; the revision itself is the key.
    struct Entry: Sendable, Hashable {
        var parent: RevisionID?
        var deleted: Bool
        var bodyAvailable: Bool
    }

    // One flat map keyed by revision makes equality and hashing independent of insertion order, which the
    // merge laws (idempotent, commutative, associative) rely on. Children and leaves are derived on demand:
    // a tree is at most `revs_limit` deep per branch and is decoded whole for each write anyway.
    var entries: [RevisionID: Entry]

    /// CouchDB's default `revs_limit`: how many revisions each branch keeps.
    public static let defaultRevsLimit = 1000

    /// Creates an empty tree: a document that was never written (or was purged entirely).
    public init() {
        entries = [:]
    }

    init(entries: [RevisionID: Entry]) {
        self.entries = entries
    }
}

extension RevisionTree {
    /// One revision in a tree, as seen from outside.
    public struct Node: Sendable, Hashable {
        /// The revision.
        public let revision: RevisionID
        /// Its parent, or `nil` for a root (the first revision, or the oldest one kept after stemming).
        public let parent: RevisionID?
        /// Whether the revision is a deletion (a tombstone when it is a leaf).
        public let deleted: Bool
        /// Whether the revision's body is still stored; compaction and replication of ancestors leave
        /// internal revisions without one (CouchDB's `missing` status).
        public let bodyAvailable: Bool
    }

    func makeNode(_ revision: RevisionID, _ entry: Entry) -> Node {
        Node(revision: revision, parent: entry.parent, deleted: entry.deleted, bodyAvailable: entry.bodyAvailable)
    }
}

extension RevisionTree {
    /// Whether the tree holds no revisions.
    public var isEmpty: Bool { entries.isEmpty }

    /// The number of revisions in the tree.
    public var count: Int { entries.count }

    /// Every revision in the tree, oldest first (by generation, then hash).
    public var allRevisions: [RevisionID] { entries.keys.sorted() }

    /// Whether the tree holds `revision`, as a leaf or an internal node.
    public func contains(_ revision: RevisionID) -> Bool {
        entries[revision] != nil
    }

    /// The node for `revision`, or `nil` when the tree does not hold it.
    public func node(_ revision: RevisionID) -> Node? {
        entries[revision].map { makeNode(revision, $0) }
    }

    /// Whether `revision` is in the tree and has no children.
    public func isLeaf(_ revision: RevisionID) -> Bool {
        guard entries[revision] != nil else { return false }
        return !entries.values.contains { $0.parent == revision }
    }

    /// The revisions without a parent, oldest first.
    public var roots: [RevisionID] {
        entries.compactMap { $0.value.parent == nil ? $0.key : nil }.sorted()
    }

    /// The children of `revision`, sorted by hash.
    public func children(of revision: RevisionID) -> [RevisionID] {
        entries.compactMap { $0.value.parent == revision ? $0.key : nil }.sorted()
    }

    /// Every revision that has at least one child.
    func parentSet() -> Set<RevisionID> {
        var parents = Set<RevisionID>(minimumCapacity: entries.count)
        for entry in entries.values {
            if let parent = entry.parent { parents.insert(parent) }
        }
        return parents
    }

    /// The children of every revision that has any, each list sorted by hash.
    func childrenIndex() -> [RevisionID: [RevisionID]] {
        var index: [RevisionID: [RevisionID]] = [:]
        for (revision, entry) in entries {
            if let parent = entry.parent { index[parent, default: []].append(revision) }
        }
        for key in index.keys { index[key]?.sort() }
        return index
    }
}
