/// A database's update sequence as CouchDB spells it: an opaque string `"N-<opaque>"`.
///
/// CouchDB 3 answers `update_seq`, `purge_seq`, `seq` and `last_seq` as strings whose prefix is a number
/// and whose rest is the base64url of an Erlang term naming each shard's sequence
/// (`fabric_view_changes:pack_seqs/1`). Clients treat them as opaque and send them back as `since`. Ours are
/// built the same way for the one "shard" a store is: `N-` then the base64url, without padding, of
/// `term_to_binary([{'nonode@nohost', [0, 4294967295], {N, Uuid, 'nonode@nohost'}}])`, where `Uuid` is the first
/// seven characters of the database's uuid (`fabric_rpc`'s uuid prefix), so they look and sort like a
/// single-node CouchDB's and carry their number in front.
///
/// `since` is read as CouchDB reads it (``since(_:)``): from the opaque part, whose uuid tells a sequence of
/// another database, or of an earlier database of the same name, from one of this database.
///
/// ```swift
/// UpdateSequence.string(12)            // "12-g2wAAAABaANkAA1ub25vZGVAbm9ob3N0bAAAAAJhAG4EAP____9qaANhDG0AAAAAZAANbm9ub2RlQG5vaG9zdGpq"
/// UpdateSequence.parse("12-g2wAAAAB…") // 12
/// UpdateSequence.parse("12")           // 12
/// ```
public enum UpdateSequence {
    /// How many characters of a database's uuid a sequence carries (`fabric_util:get_uuid_prefix_len/0`).
    public static let uuidPrefixLength = 7

    /// The sequence `seq` of the database whose uuid is `uuid` in CouchDB's form (no uuid: a sequence any
    /// database takes by its number, as this server wrote them before it wrote uuids).
    public static func string(_ seq: Int64, uuid: String = "") -> String {
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
        term.writeBinary(Array(uuid.utf8.prefix(uuidPrefixLength)))
        term.writeAtom("nonode@nohost")
        term.writeNil()
        return "\(seq)-" + Base64.encodeURL(term.bytes)
    }

    /// The sequence `seq` as a JSON value in CouchDB's form.
    public static func json(_ seq: Int64, uuid: String = "") -> JSONValue { .string(string(seq, uuid: uuid)) }

    /// Where a `since` value starts: a sequence number, and the uuid prefix of the database it was read from
    /// when it names one.
    public struct Since: Sendable, Hashable {
        /// The sequence number to start after.
        public var seq: Int64
        /// The first characters of the uuid of the database the sequence came from; nil or empty when it names
        /// none (`0`, a plain integer, a sequence this server wrote before it wrote uuids).
        public var uuid: String?

        /// A start after `seq` in the database whose uuid begins with `uuid` (any database when nil or empty).
        public init(seq: Int64, uuid: String? = nil) {
            self.seq = seq
            self.uuid = uuid
        }

        /// The sequence to start after in the database whose uuid is `databaseUUID`: ``seq``, or `0` when the
        /// sequence names another database (`couch_db:calculate_start_seq/3`: a file that was rebuilt, or
        /// another one, is read from the start).
        public func start(inDatabase databaseUUID: String) -> Int64 {
            guard let uuid, !uuid.isEmpty else { return seq }
            return databaseUUID.hasPrefix(uuid) ? seq : 0
        }
    }

    /// A `since` value as `fabric_view_changes:unpack_seqs/2` reads it: the number in front is ignored and the
    /// opaque part decoded (`"N-<opaque>"`, `<opaque>` alone, either in double quotes); the entry for the one
    /// shard's range gives the sequence and its uuid, and a sequence whose entries name other shards (another
    /// cluster's) starts from `0`. `0` and a plain integer, as older servers answer, are taken as they are.
    /// `nil` when the opaque part does not decode (CouchDB's "Malformed sequence supplied in 'since' parameter.").
    public static func since(_ text: String) -> Since? {
        var text = Substring(text)
        if text.first == "\"" { text = text.dropFirst() }
        if text.last == "\"" { text = text.dropLast() }
        if !text.isEmpty, text.allSatisfy({ ("0"..."9").contains($0) }) {
            return Int64(text).map { Since(seq: $0) }
        }
        let digits = text.prefix { ("0"..."9").contains($0) }
        if !digits.isEmpty, text.dropFirst(digits.count).first == "-" { text = text.dropFirst(digits.count + 1) }
        guard let bytes = Base64.decodeURL(text), case .list(let entries)? = ErlangValue(externalFormat: bytes) else { return nil }
        var found: Since?
        for entry in entries {
            guard case .tuple(let parts) = entry, parts.count == 3, case .list(let range) = parts[1], range.count == 2 else {
                return nil
            }
            guard range == [.integer(0), .integer(4_294_967_295)] else { continue }
            switch parts[2] {
            case .integer(let seq): found = Since(seq: seq)
            case .tuple(let shard) where shard.count == 3:
                guard case .integer(let seq) = shard[0], case .binary(let uuid) = shard[1] else { return nil }
                found = Since(seq: seq, uuid: String(decoding: uuid, as: UTF8.self))
            default: return nil
            }
        }
        return found ?? Since(seq: 0)
    }

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
}
