/// A member name as a dictionary key, compared and hashed by its UTF-8 bytes (`String`'s own `==` and hash
/// take canonically equivalent spellings to be one): how the parser finds repeated names in large objects.
struct JSONMemberName: Hashable {
    let name: String

    init(_ name: String) { self.name = name }

    static func == (lhs: JSONMemberName, rhs: JSONMemberName) -> Bool { JSONObject.sameName(lhs.name, rhs.name) }

    func hash(into hasher: inout Hasher) {
        for byte in name.utf8 { hasher.combine(byte) }
    }
}
