/// A free-text note attached to a care entity, like CareKit's `OCKNote`. Notes are not versioned and have no id.
///
/// ```swift
/// task.notes = [Note(author: "Dr. Lee", title: "Dose", content: "Take with food")]
/// ```
public struct Note: Codable, Hashable, Sendable {
    /// Who wrote the note.
    public var author: String?
    /// The note's title.
    public var title: String?
    /// The note's text.
    public var content: String?

    /// Creates a note.
    public init(author: String? = nil, title: String? = nil, content: String? = nil) {
        self.author = author
        self.title = title
        self.content = content
    }
}
