public import Foundation

extension JSONValue {
    /// Parses JSON text given as UTF-8 bytes.
    ///
    /// The parser is strict RFC 8259 (no comments, trailing commas, `NaN`, leading zeros or `+`, raw control
    /// characters, lone surrogates or invalid UTF-8) and keeps what `JSONSerialization` loses: integers that
    /// fit in `Int64` stay exact integers, and object members keep their written order. A member name written
    /// twice keeps its last value. Nesting is limited to 512 levels.
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: Array(#"{"id": 9007199254740993, "tags": ["a"]}"#.utf8))
    /// value["id"]   // .number(.integer(9007199254740993)), exact
    /// ```
    ///
    /// - Parameter bytes: The UTF-8 encoded JSON text; contiguous collections are read in place.
    /// - Throws: ``CloudantError/Code/invalidInput`` with the byte offset of the problem in
    ///   ``CloudantError/Context/position``; the message never quotes the input.
    public init(parsing bytes: some Collection<UInt8>) throws {
        if let value = try bytes.withContiguousStorageIfAvailable({ buffer throws(CloudantError) in
            try JSONParser.parse(buffer)
        }) {
            self = value
        } else {
            self = try Array(bytes).withUnsafeBufferPointer { buffer throws(CloudantError) in
                try JSONParser.parse(buffer)
            }
        }
    }

    /// Parses JSON text given as UTF-8 bytes, the outermost object with `leadingMembers` in front of its own
    /// (which lose members of those names): ``JSONObject/prepending(_:)`` of the parsed object, without
    /// building it twice. How a stored body becomes a document with `_id` and `_rev` first. A value that is
    /// not an object is returned as it is.
    ///
    /// ```swift
    /// let document = try JSONValue(parsing: Array(#"{"minutes":30}"#.utf8), leadingMembers: [("_id", "walk")])
    /// document.objectValue?.keys   // ["_id", "minutes"]
    /// ```
    ///
    /// - Throws: as ``init(parsing:)-(Collection<UInt8>)``.
    public init(parsing bytes: UnsafeBufferPointer<UInt8>, leadingMembers: [(key: String, value: JSONValue)]) throws {
        self = try JSONParser.parse(bytes, leadingMembers: leadingMembers)
    }

    /// Parses JSON text given as a string.
    ///
    /// ```swift
    /// let body = try JSONValue(parsing: #"{"title": "Walk", "minutes": 30}"#)
    /// ```
    ///
    /// - Throws: ``CloudantError/Code/invalidInput`` with the UTF-8 byte offset of the problem in
    ///   ``CloudantError/Context/position``.
    public init(parsing text: String) throws {
        var text = text
        // A native string is already contiguous UTF-8, so this reads it in place.
        self = try text.withUTF8 { buffer throws(CloudantError) in try JSONParser.parse(buffer) }
    }

    /// Parses JSON text given as `Data` (a request body, a file, a stored row).
    ///
    /// ```swift
    /// let value = try JSONValue(parsing: try Data(contentsOf: url))
    /// ```
    ///
    /// - Throws: ``CloudantError/Code/invalidInput`` with the byte offset of the problem in
    ///   ``CloudantError/Context/position``.
    public init(parsing data: Data) throws {
        self = try data.withUnsafeBytes { raw throws(CloudantError) in
            try JSONParser.parse(raw.bindMemory(to: UInt8.self))
        }
    }

    /// The deepest nesting of arrays and objects a parse accepts (the outermost value is level 1).
    public static let maximumNestingDepth = JSONParser.maximumDepth

    /// Parses `data` allowing `maximumDepth` levels of nesting instead of ``maximumNestingDepth``: for an
    /// envelope around documents (a replication peer's answer), whose documents are then checked against
    /// ``maximumNestingDepth`` on their own.
    /// - Throws: ``CloudantError/Code/invalidInput``, as the other `init(parsing:)` do.
    package init(parsing data: Data, maximumDepth: Int) throws {
        self = try data.withUnsafeBytes { raw throws(CloudantError) in
            try JSONParser.parse(raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth)
        }
    }

    /// How deep arrays and objects nest in this value (0 for a scalar, 1 for a flat object or array).
    public var nestingDepth: Int {
        var deepest = 0
        var pending: [(JSONValue, Int)] = [(self, 1)]
        while let (value, level) = pending.popLast() {
            switch value {
            case .object(let object):
                deepest = max(deepest, level)
                for (_, member) in object.members { pending.append((member, level + 1)) }
            case .array(let array):
                deepest = max(deepest, level)
                for element in array { pending.append((element, level + 1)) }
            default:
                break
            }
        }
        return deepest
    }
}
