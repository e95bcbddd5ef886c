import CloudantCore
import Testing

/// A revision from its string form; test inputs are literals, so a typo is a bug in the test.
func rev(_ text: String) -> RevisionID {
    guard let revision = RevisionID(text) else { preconditionFailure("Not a revision: \(text)") }
    return revision
}

/// Revisions from space-separated strings, in the order written.
func revs(_ text: String) -> [RevisionID] {
    text.split(separator: " ").map { rev(String($0)) }
}

/// A tree built by replicated merges of histories written oldest first, e.g. `"1-a 2-b 3-c"`; a trailing
/// `*` marks the newest revision of that history as deleted.
func makeTree(_ histories: String..., revsLimit: Int = RevisionTree.defaultRevsLimit) throws -> RevisionTree {
    var tree = RevisionTree()
    for history in histories { try tree.merge(history, revsLimit: revsLimit) }
    return tree
}

extension RevisionTree {
    /// Merges a history written oldest first (see ``makeTree(_:revsLimit:)``).
    @discardableResult
    mutating func merge(_ history: String, revsLimit: Int = RevisionTree.defaultRevsLimit) throws -> RevisionTree.MergeResult {
        let deleted = history.hasSuffix("*")
        let path = revs(deleted ? String(history.dropLast()) : history).reversed()
        return try merge(path: Array(path), deleted: deleted, revsLimit: revsLimit)
    }

    /// An interactive write: checks it like a store would, then adds `new` under the parent it gets.
    @discardableResult
    mutating func write(
        _ new: String, naming named: String?, deleted: Bool = false, revsLimit: Int = RevisionTree.defaultRevsLimit
    ) throws -> RevisionID? {
        let parent = try parentForInteractiveWrite(named: named.map(rev), deleting: deleted, documentID: "doc")
        try addChild(rev(new), of: parent, deleted: deleted, revsLimit: revsLimit, documentID: "doc")
        return parent
    }
}

/// Expects `body` to throw a ``CloudantError`` with `code`, and returns it for further checks.
@discardableResult
func expectError(
    _ code: CloudantError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> CloudantError? {
    do {
        try body()
        Issue.record("Expected a \(code) error, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as CloudantError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("Expected a CloudantError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
