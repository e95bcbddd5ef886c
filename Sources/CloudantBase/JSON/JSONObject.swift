/// A JSON object whose members keep the order they were written in.
///
/// CouchDB returns members in the order a client wrote them; so do we. Two objects are equal when they
/// hold the same members, whatever their order, as JSON defines it.
///
/// Member names are matched by their exact UTF-8 bytes, as in CouchDB (Erlang binaries), JavaScript and
/// every JSON parser, not by Swift's `String` equality, which takes canonically equivalent spellings to be
/// equal: `"é"` (U+00E9) and `"e\u0301"` are two members, and neither overwrites the other.
public struct JSONObject: Sendable, Hashable {
    /// The members in written order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// Creates an empty object.
    public init() { members = [] }

    /// Creates an object from members in order; a repeated key keeps its last value in its first place.
    public init(_ members: some Sequence<(String, JSONValue)>) {
        self.members = []
        for (key, value) in members { self[key] = value }
    }

    /// Creates an object from members whose keys the caller has already made unique (the parser does, in
    /// O(n) rather than the O(n²) of repeated subscript assignment). Repeated keys here would break `==`.
    package init(uniqueMembers members: [(key: String, value: JSONValue)]) {
        self.members = members
    }

    /// This object with `leading` members first (replacing members of the same names), in O(n): how a
    /// stored body becomes a document with `_id` and `_rev` in front.
    ///
    /// ```swift
    /// let document = body.prepending([("_id", "walk"), ("_rev", "1-abc")])
    /// ```
    public func prepending(_ leading: [(key: String, value: JSONValue)]) -> JSONObject {
        var merged = leading
        merged.reserveCapacity(leading.count + members.count)
        for member in members where !Self.isNamed(member.key, amongst: leading) { merged.append(member) }
        return JSONObject(uniqueMembers: merged)
    }

    /// Whether `key` is the name of one of `members`; names are compared in full only when their first bytes
    /// agree (a stored body's names never start with the `_` of the members put in front of it).
    static func isNamed(_ key: String, amongst members: [(key: String, value: JSONValue)]) -> Bool {
        let first = key.utf8.first
        return members.contains { $0.key.utf8.first == first && sameName($0.key, key) }
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The member keys in written order.
    public var keys: [String] { members.map(\.key) }

    /// The value of the member `key`; setting `nil` removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { Self.sameName($0.key, key) })?.value }
        set {
            let index = members.firstIndex(where: { Self.sameName($0.key, key) })
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// Removes and returns the member `key`.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let index = members.firstIndex(where: { Self.sameName($0.key, key) }) else { return nil }
        return members.remove(at: index).value
    }

    /// Whether two member names are the same name: the same UTF-8 bytes (see the type's discussion).
    static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        // Contiguous (native) strings compare as buffers; a lookup runs this once per member.
        let fast = a.utf8.withContiguousStorageIfAvailable { left in
            b.utf8.withContiguousStorageIfAvailable { right in
                left.elementsEqual(right)
            }
        }
        if let fast, let equal = fast { return equal }
        return a.utf8.elementsEqual(b.utf8)
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with `==`.
        var combined = 0
        for member in members {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// Creates an object whose members keep the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
