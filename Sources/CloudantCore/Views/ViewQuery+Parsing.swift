extension ViewQuery {
    /// A parameter's value: text from a query string (JSON-encoded for keys) or a value a JSON body decoded.
    public enum ParameterValue: Sendable, Hashable {
        /// From a URL's query string.
        case text(String)
        /// From a JSON request body.
        case json(JSONValue)
    }

    /// Reads query-string parameters in order (a later one wins), as CouchDB's `parse_params`.
    ///
    /// A `keys` parameter of one key is that key's range, as CouchDB reads it.
    /// - Throws: `CloudantError` with ``QueryErrorKind/queryParseError`` and CouchDB's reason for a value
    ///   of the wrong form ("Invalid boolean parameter: \"x\"", "Invalid value for positive integer: \"-1\"",
    ///   "Invalid value for `stale`."), or `.invalidInput` "invalid UTF-8 JSON" for a key that is not JSON.
    public init(parameters: [(String, String)]) throws {
        self.init()
        for (name, value) in parameters { try apply(name, .text(value)) }
    }

    /// Applies one parameter (CouchDB's `parse_param`); unknown names are ignored, as CouchDB keeps them
    /// aside unused.
    /// - Throws: as ``init(parameters:)``.
    public mutating func apply(_ name: String, _ value: ParameterValue) throws {
        switch name {
        case "reduce": reduce = try Self.boolean(value)
        case "key":
            let key = try Self.json(value)
            startKey = key
            endKey = key
        case "keys":
            let decoded = try Self.json(value)
            if case .array(let list) = decoded, list.count == 1 {
                startKey = list[0]
                endKey = list[0]
            } else {
                guard case .array(let list) = decoded else {
                    throw Self.parseError("`keys` must be an array of strings.")
                }
                keys = list
            }
        case "startkey", "start_key": startKey = try Self.json(value)
        case "endkey", "end_key": endKey = try Self.json(value)
        case "startkey_docid", "start_key_doc_id": startKeyDocID = Self.text(value)
        case "endkey_docid", "end_key_doc_id": endKeyDocID = Self.text(value)
        case "limit": limit = try Self.nonNegativeInteger(value)
        case "skip": skip = try Self.nonNegativeInteger(value)
        case "stale":
            switch Self.text(value) {
            case "ok": (stable, update) = (true, .false)
            case "update_after": (stable, update) = (true, .lazy)
            default: throw Self.parseError("Invalid value for `stale`.")
            }
        case "stable":
            switch value {
            case .text("true"), .json(.string("true")), .json(.bool(true)): stable = true
            case .text("false"), .json(.string("false")), .json(.bool(false)): stable = false
            default: throw Self.parseError("Invalid value for `stable`.")
            }
        case "update":
            switch value {
            case .text("true"), .json(.string("true")), .json(.bool(true)): update = .true
            case .text("false"), .json(.string("false")), .json(.bool(false)): update = .false
            case .text("lazy"), .json(.string("lazy")): update = .lazy
            default: throw Self.parseError("Invalid value for `update`.")
            }
        case "descending": descending = try Self.boolean(value)
        case "group": group = try Self.boolean(value)
        case "group_level": groupLevel = try Self.nonNegativeInteger(value)
        case "inclusive_end": inclusiveEnd = try Self.boolean(value)
        case "include_docs": includeDocs = try Self.boolean(value)
        case "attachments": if try Self.boolean(value) { attachments = true }
        case "att_encoding_info": if try Self.boolean(value) { attachmentEncodingInfo = true }
        case "update_seq": updateSeq = try Self.boolean(value)
        case "conflicts": conflicts = try Self.boolean(value)
        case "sorted": sorted = try Self.boolean(value)
        case "partition":
            let text = Self.text(value)
            try DocumentPartition.validate(text)
            partition = text
        default: break
        }
    }

    // MARK: Values

    /// `parse_boolean`: `true`/`false` in any case, or a JSON boolean.
    static func boolean(_ value: ParameterValue) throws -> Bool {
        if case .json(.bool(let bool)) = value { return bool }
        switch text(value).lowercased() {
        case "true": return true
        case "false": return false
        default: throw parseError("Invalid boolean parameter: \(erlangFormatted(value))")
        }
    }

    /// `parse_pos_int`: an integer ≥ 0.
    ///
    /// From a JSON body only an integer will do (`parse_int` takes an Erlang integer as is and gives anything
    /// else to `list_to_integer`, which refuses a string's binary and a float): `"5"` and `5.0` are refused.
    static func nonNegativeInteger(_ value: ParameterValue) throws -> Int {
        let integer: Int
        switch value {
        case .json(.number(.integer(let exact))):
            integer = Int(exact)
        case .json(.number(.bigInteger(let digits))):
            // A whole number beyond 64 bits is still an integer to Erlang (clamped, as `erlangInteger` says).
            integer = Int(erlangInteger: digits) ?? Int.max
        case .json(.number(.double(let double))):
            throw parseError("Invalid value for integer: \(ErlangTerm.float(double))")
        case .json(.string(let text)):
            throw parseError("Invalid value for integer: <<\"\(text.replacingBackslashesAndQuotes())\">>")
        case .json:
            throw parseError("Invalid value for integer: \(erlangFormatted(value))")
        default:
            guard let parsed = Int(erlangInteger: text(value)) else {
                throw parseError("Invalid value for integer: \(erlangFormatted(value))")
            }
            integer = parsed
        }
        guard integer >= 0 else { throw parseError("Invalid value for positive integer: \(erlangFormatted(value))") }
        return integer
    }

    /// A key parameter: JSON text from a query string, a decoded value from a body.
    static func json(_ value: ParameterValue) throws -> JSONValue {
        switch value {
        case .json(let decoded): return decoded
        case .text(let text):
            do {
                return try JSONValue(parsing: text)
            } catch {
                throw CloudantError(.invalidInput, "invalid UTF-8 JSON", context: .init(field: "key"))
            }
        }
    }

    static func text(_ value: ParameterValue) -> String {
        switch value {
        case .text(let text): text
        case .json(.string(let text)): text
        case .json(let other): other.jsonString()
        }
    }

    /// The value as Erlang's `~p` prints what CouchDB parsed: a string in double quotes, a number as is.
    static func erlangFormatted(_ value: ParameterValue) -> String {
        switch value {
        case .json(.number(let number)): JSONValue.number(number).jsonString()
        case .json(.bool(let bool)): bool ? "true" : "false"
        default: "\"" + text(value).replacingBackslashesAndQuotes() + "\""
        }
    }

    static func parseError(_ reason: String) -> CloudantError {
        QueryErrorKind.queryParseError.error(reason, field: nil)
    }
}

extension Int {
    /// Erlang's `list_to_integer`: an optional sign and decimal digits, nothing else.
    ///
    /// Erlang's integers have no bound; one beyond `Int`'s range is clamped to `Int.max` or `Int.min`, which
    /// every parameter read this way treats as Erlang treats the exact number (a `limit` too large, a `skip`
    /// past every row, a `group_level` deeper than any key).
    init?(erlangInteger text: String) {
        var digits = Substring(text)
        var negative = false
        if let first = digits.first, first == "-" || first == "+" {
            negative = first == "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        guard let value = Int(digits) else {
            self = negative ? Int.min : Int.max
            return
        }
        self = negative ? -value : value
    }
}

extension String {
    fileprivate func replacingBackslashesAndQuotes() -> String {
        var out = ""
        for character in self {
            if character == "\\" || character == "\"" { out.append("\\") }
            out.append(character)
        }
        return out
    }
}
