/// A database's update sequence as CouchDB spells it: an opaque string `"N-<opaque>"`.
///
/// CouchDB 3 answers `update_seq`, `purge_seq`, `seq` and `last_seq` as strings whose prefix is a number
/// and whose rest is the base64url of an Erlang term naming each shard's sequence
/// (`fabric_view_changes:pack_seqs/1`). Clients treat them as opaque and send them back as `since`. Ours are
/// built the same way for the one "shard" a store is: `N-` then the base64url, without padding, of
/// `term_to_binary([{'nonode@nohost', [0, 4294967295], {N, <<>>, 'nonode@nohost'}}])`, so they look and sort
/// like a single-node CouchDB's and carry their number in front.
///
/// `since` accepts every form CouchDB accepts and the integers older servers (and CouchDB 1.x) answer:
/// `parse(_:)`.
///
/// ```swift
/// UpdateSequence.string(12)            // "12-g2wAAAABaANkAA1ub25vZGVAbm9ob3N0bAAAAAJhAG4EAP____9qaANhDG0AAAAAZAANbm9ub2RlQG5vaG9zdGpq"
/// UpdateSequence.parse("12-g2wAAAAB…") // 12
/// UpdateSequence.parse("12")           // 12
/// ```
public enum UpdateSequence {
    /// The sequence `seq` in CouchDB's form.
    public static func string(_ seq: Int64) -> String {
        var term = ErlangTermWriter(capacity: 64)
        term.writeVersion()
        term.writeListHeader(count: 1)
        term.writeTupleHeader(arity: 3)
        term.writeAtom("nonode@nohost")
        term.writeListHeader(count: 2)
        term.writeInteger(0)
        term.writeInteger(4_294_967_295)
        term.writeNil()
        term.writeTupleHeader(arity: 3)
        term.writeInteger(seq)
        term.writeBinary([UInt8]())
        term.writeAtom("nonode@nohost")
        term.writeNil()
        return "\(seq)-" + base64URL(term.bytes)
    }

    /// The sequence `seq` as a JSON value in CouchDB's form.
    public static func json(_ seq: Int64) -> JSONValue { .string(string(seq)) }

    /// The number a `since` value names, in any form CouchDB accepts: `0`, `"N-<opaque>"`, the same in
    /// double quotes; and a plain integer, as older servers answer. `nil` when it names none (CouchDB's
    /// "Malformed sequence supplied in 'since' parameter.").
    public static func parse(_ text: String) -> Int64? {
        var text = Substring(text)
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        let digits = text.prefix { ("0"..."9").contains($0) }
        guard !digits.isEmpty, let number = Int64(digits) else { return nil }
        let rest = text.dropFirst(digits.count)
        guard rest.isEmpty || rest.first == "-" else { return nil }
        return number
    }

    /// The number a sequence written as JSON names: an integer, or a string ``parse(_:)`` reads.
    public static func parse(_ value: JSONValue) -> Int64? {
        switch value {
        case .number(let number): number.int64Value
        case .string(let text): parse(text)
        default: nil
        }
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Base64.encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
