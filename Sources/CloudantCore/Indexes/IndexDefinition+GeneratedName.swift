internal import Crypto

extension IndexDefinition {
    /// The name CouchDB gives an index created without one, which is also its design document's without a
    /// `ddoc` (`mango_idx:gen_name/2`): the hex SHA-1 of `term_to_binary({Def, lists:usort(Opts)})`, where
    /// `Def` is the request's `index` object as sent and `Opts` every option of the request as
    /// `mango_opts:validate_idx_create/1` leaves it, defaults filled in:
    /// `[{ddoc, D}, {def, Def}, {name, N}, {partitioned, P}, {type, T}, {w, W}]`, with `auto_name` for a
    /// missing name or ddoc, `db_default` for a missing `partitioned`, `<<"json">>` and `2` for a missing
    /// type and `w`.
    ///
    /// So the same request twice names the same index, and an index created on CouchDB and replicated here
    /// is found again by the request that made it; a request that differs in anything (a `name`, a `w`, the
    /// order of the `index` object's members) names another.
    ///
    /// ```swift
    /// IndexDefinition.generatedName(request: ["index": ["fields": ["foo"]], "name": "foo-index", "type": "json"])
    /// ```
    ///
    /// - Parameter request: A `POST /{db}/_index` body that ``init(indexRequest:)`` accepts.
    /// - Returns: 40 lowercase hexadecimal digits.
    public static func generatedName(request: JSONObject) -> String {
        var term = ErlangTermWriter(capacity: 256)
        term.writeVersion()
        term.writeTupleHeader(arity: 2)
        let def = request["index"] ?? .null
        term.writeEJSON(def)
        // `lists:usort/1` orders the 2-tuples by their first element, atoms alphabetically.
        term.writeListHeader(count: 6)
        writeOption("ddoc", request["ddoc"], to: &term)
        term.writeTupleHeader(arity: 2)
        term.writeAtom("def")
        term.writeEJSON(def)
        writeOption("name", request["name"], to: &term)
        term.writeTupleHeader(arity: 2)
        term.writeAtom("partitioned")
        if case .bool(let flag)? = request["partitioned"] { term.writeBoolean(flag) } else { term.writeAtom("db_default") }
        term.writeTupleHeader(arity: 2)
        term.writeAtom("type")
        term.writeEJSON(request["type"] ?? "json")
        term.writeTupleHeader(arity: 2)
        term.writeAtom("w")
        term.writeEJSON(request["w"] ?? 2)
        term.writeNil()
        return Insecure.SHA1.hash(data: term.bytes).map { byte in
            let hex = Array("0123456789abcdef".utf8)
            return String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
        }.joined()
    }

    /// `{name, Value}` or `{ddoc, Value}`: the request's string, or `auto_name` when it gave none.
    private static func writeOption(_ atom: StaticString, _ value: JSONValue?, to term: inout ErlangTermWriter) {
        term.writeTupleHeader(arity: 2)
        term.writeAtom(atom)
        if let value { term.writeEJSON(value) } else { term.writeAtom("auto_name") }
    }
}
