extension RevisionTree: CustomStringConvertible {
    /// The tree's shape, for logs and test failures: roots separated by `|`, children in parentheses, `*`
    /// after a deletion, `?` after a revision whose body is not stored. For example
    /// `1-a?(2-b(3-c), 2-x*)`. Holds revision ids only, never document bodies.
    public var description: String {
        guard !entries.isEmpty else { return "(empty)" }
        enum Token {
            case revision(RevisionID)
            case text(String)
        }
        let children = childrenIndex()
        func pushList(_ revisions: [RevisionID], separator: String, onto stack: inout [Token]) {
            for (position, revision) in revisions.enumerated().reversed() {
                stack.append(.revision(revision))
                if position > 0 { stack.append(.text(separator)) }
            }
        }
        // An explicit stack rather than recursion: a history can be revs_limit (or more) deep.
        var stack: [Token] = []
        pushList(roots, separator: " | ", onto: &stack)
        var output = ""
        while let token = stack.popLast() {
            switch token {
            case .text(let text):
                output += text
            case .revision(let revision):
                output += revision.description
                if let entry = entries[revision] {
                    if entry.deleted { output += "*" }
                    if !entry.bodyAvailable { output += "?" }
                }
                if let below = children[revision] {
                    stack.append(.text(")"))
                    pushList(below, separator: ", ", onto: &stack)
                    stack.append(.text("("))
                }
            }
        }
        return output
    }
}
