/// JSON values as CouchDB's Erlang sees them (decoded by jiffy: strings are binaries, `true`, `false` and
/// `null` atoms, arrays lists, objects `{[{Key, Value}, …]}`), for what depends on that form:
/// `_approx_count_distinct` hashes a key's external term format, and some of CouchDB's messages print a value
/// with `~p`.
enum ErlangTerm {
    /// `term_to_binary(Value, [{minor_version, 1}])`, CouchDB's `?term_to_bin`: the bytes `couch_query_servers`
    /// hashes for `_approx_count_distinct`, the same form a revision id hashes (``ErlangTermWriter``).
    static func externalFormat(of value: JSONValue) -> [UInt8] {
        var writer = ErlangTermWriter(capacity: 32)
        writer.writeVersion()
        writer.writeEJSON(value)
        return writer.bytes
    }

    /// A value as Erlang's `~p` prints the term: `<<"text">>`, `[1,2]`, `{[{<<"a">>,1}]}`, `null`.
    static func format(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): flag ? "true" : "false"
        case .number(let number): JSONValue.number(number).jsonString()
        case .string(let text): "<<" + JSONValue.string(text).jsonString() + ">>"
        case .array(let elements): "[" + elements.map(format).joined(separator: ",") + "]"
        case .object(let object):
            "{[" + object.members.map { "{" + format(.string($0.key)) + "," + format($0.value) + "}" }.joined(separator: ",") + "]}"
        }
    }
}
