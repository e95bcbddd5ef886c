/// JSON values as CouchDB's Erlang sees them (decoded by jiffy: strings are binaries, objects
/// `{[{Key,Value},…]}`, arrays lists, and `true`, `false` and `null` atoms), for what depends on that form:
/// the messages CouchDB builds with `io_lib:format`'s `~p` or `~w`, and the external term format
/// `_approx_count_distinct` hashes.
///
/// ```swift
/// ErlangTerm.format(["a": "b"], printable: true)    // {[{<<"a">>,<<"b">>}]}
/// ErlangTerm.format("ab", printable: false)         // <<97,98>>
/// ErlangTerm.float(1000)                            // 1.0e3
/// ```
///
/// `~p` breaks a term longer than a line over several lines; this writes every term on one.
public enum ErlangTerm {
    /// The term of `value`: with `printable` (`~p`) a binary of printable ASCII reads as `<<"text">>`;
    /// without it (`~w`), and for any other binary, as its bytes (`<<195,169>>`).
    public static func format(_ value: JSONValue, printable: Bool = true) -> String {
        switch value {
        case .string(let text): binary(text, printable: printable)
        case .number(let number):
            if case .double(let double) = number { float(double) } else { value.jsonString() }
        case .bool(let bool): bool ? "true" : "false"
        case .null: "null"
        case .array(let elements): "[" + elements.map { format($0, printable: printable) }.joined(separator: ",") + "]"
        case .object(let object):
            "{[" + object.members.map { "{" + binary($0.key, printable: printable) + "," + format($0.value, printable: printable) + "}" }
                .joined(separator: ",") + "]}"
        }
    }

    /// `term_to_binary(Value, [{minor_version, 1}])`, CouchDB's `?term_to_bin`: the bytes `couch_query_servers`
    /// hashes for `_approx_count_distinct`, the same form a revision id hashes (``ErlangTermWriter``).
    static func externalFormat(of value: JSONValue) -> [UInt8] {
        var writer = ErlangTermWriter(capacity: 32)
        writer.writeVersion()
        writer.writeEJSON(value)
        return writer.bytes
    }

    /// A binary holding `text`'s UTF-8 bytes.
    public static func binary(_ text: String, printable: Bool = true) -> String {
        let bytes = Array(text.utf8)
        // Erlang writes the empty binary `<<>>` whichever way it prints.
        if bytes.isEmpty { return "<<>>" }
        if printable, bytes.allSatisfy({ (0x20...0x7E).contains($0) || escapes[$0] != nil }) {
            return "<<\"" + bytes.map { escapes[$0] ?? String(UnicodeScalar($0)) }.joined() + "\">>"
        }
        return "<<" + bytes.map(String.init).joined(separator: ",") + ">>"
    }

    /// How `~p` writes the characters it escapes in a printable binary.
    private static let escapes: [UInt8: String] = [
        0x22: "\\\"", 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v", 0x08: "\\b", 0x0C: "\\f", 0x1B: "\\e",
    ]

    /// A float as Erlang prints it: the shortest digits that read back, written plainly or with an
    /// exponent, whichever is shorter (the plain form on a tie): `1.0`, `1.5`, `100.0`, `1.0e3`, `0.001`.
    public static func float(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        // Swift's description holds the shortest digits that read back, plainly or as `1e-05`.
        let text = "\(abs(value))"
        let sign = value < 0 ? "-" : ""
        let parts = text.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        var digits = String(mantissa.filter { $0 != "." })
        var exponent = (mantissa.firstIndex(of: ".").map { mantissa.distance(from: mantissa.startIndex, to: $0) } ?? mantissa.count) - 1
        exponent += parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let leadingZeros = digits.prefix { $0 == "0" }.count
        digits = String(digits.dropFirst(leadingZeros))
        exponent -= leadingZeros
        while digits.count > 1, digits.hasSuffix("0") { digits.removeLast() }
        guard !digits.isEmpty else { return sign + "0.0" }
        let scientific = String(digits.prefix(1)) + "." + (digits.count > 1 ? String(digits.dropFirst()) : "0") + "e\(exponent)"
        let plain: String
        if exponent < 0 {
            plain = "0." + String(repeating: "0", count: -exponent - 1) + digits
        } else if exponent + 1 >= digits.count {
            plain = digits + String(repeating: "0", count: exponent + 1 - digits.count) + ".0"
        } else {
            plain = String(digits.prefix(exponent + 1)) + "." + String(digits.dropFirst(exponent + 1))
        }
        return sign + (scientific.count < plain.count ? scientific : plain)
    }
}
