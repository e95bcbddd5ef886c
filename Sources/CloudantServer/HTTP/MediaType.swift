/// A parsed `Content-Type` or `Accept` entry: `type/subtype; name=value; name="quoted value"` (RFC 9110 §8.3.1).
///
/// Multipart bodies name their boundary in a parameter that may be quoted (`boundary="abc"`, as CouchDB
/// writes it) or not (`boundary=abc`, as curl and many clients do), so both are read here, once.
struct MediaType: Sendable, Equatable {
    /// `type/subtype`, lowercased (media types compare case-insensitively).
    var essence: String
    /// The parameters in order, names lowercased, values unquoted and unescaped (values keep their case:
    /// boundaries are case-sensitive).
    var parameters: [(name: String, value: String)]

    /// The value of the parameter `name` (case-insensitive), if present.
    func parameter(_ name: String) -> String? {
        let wanted = name.lowercased()
        return parameters.first { $0.name == wanted }?.value
    }

    /// Whether this is `multipart/<subtype>`.
    func isMultipart(_ subtype: String) -> Bool { essence == "multipart/" + subtype.lowercased() }

    /// Parses one media type; nil when there is no `type/subtype`.
    init?(parsing text: some StringProtocol) {
        var scanner = Array(text.utf8)[...]
        let essence = Self.token(&scanner, until: [UInt8(ascii: ";")]).lowercased()
        let pieces = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else { return nil }
        self.essence = essence
        parameters = []
        while scanner.first == UInt8(ascii: ";") {
            scanner = scanner.dropFirst()
            let name = Self.token(&scanner, until: [UInt8(ascii: "="), UInt8(ascii: ";")]).lowercased()
            guard scanner.first == UInt8(ascii: "=") else { continue }
            scanner = scanner.dropFirst()
            Self.skipSpaces(&scanner)
            let value =
                scanner.first == UInt8(ascii: "\"")
                ? Self.quotedString(&scanner) : Self.token(&scanner, until: [UInt8(ascii: ";")])
            // Anything between a closing quote and the next `;` is not part of the value.
            while let byte = scanner.first, byte != UInt8(ascii: ";") { scanner = scanner.dropFirst() }
            if !name.isEmpty { parameters.append((name, value)) }
        }
    }

    init(essence: String, parameters: [(name: String, value: String)] = []) {
        self.essence = essence.lowercased()
        self.parameters = parameters
    }

    static func == (lhs: MediaType, rhs: MediaType) -> Bool {
        lhs.essence == rhs.essence && lhs.parameters.elementsEqual(rhs.parameters) { $0 == $1 }
    }

    /// Whether a client whose `Accept` header is `header` takes `essence`, by mochiweb's
    /// `accepts_content_type/1`, which CouchDB asks before answering `open_revs` as `multipart/mixed`,
    /// `attachments=true` as `multipart/related` and `_bulk_get` as either.
    ///
    /// A missing header is `*/*`. The client takes the type when an entry with a quality above 0 is `*/*`,
    /// the type itself or its family (`multipart/*`), and neither the type nor its family is listed with
    /// `q=0`. Entries compare lowercased with their other parameters (`text/html;level=1` is not
    /// `text/html`); a quality that is not `0`–`1` with at most three decimals, or a parameter without `=`,
    /// makes the whole header unreadable, and an unreadable header takes nothing.
    static func accepts(_ essence: String, in header: String?) -> Bool {
        guard let entries = AcceptEntry.parse(header ?? "*/*") else { return false }
        let wanted = essence.lowercased().filter { !$0.isWhitespace }
        let family = (wanted.split(separator: "/").first.map(String.init) ?? wanted) + "/*"
        let listed = entries.contains { $0.quality > 0 && ($0.type == "*/*" || $0.type == wanted || $0.type == family) }
        let refused = entries.contains { $0.quality == 0 && ($0.type == wanted || $0.type == family) }
        return listed && !refused
    }

    // MARK: Scanning

    private static func skipSpaces(_ scanner: inout ArraySlice<UInt8>) {
        while let byte = scanner.first, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
            scanner = scanner.dropFirst()
        }
    }

    /// Reads up to (not including) one of `stops`, trimmed.
    private static func token(_ scanner: inout ArraySlice<UInt8>, until stops: [UInt8]) -> String {
        skipSpaces(&scanner)
        let end = scanner.firstIndex { stops.contains($0) } ?? scanner.endIndex
        let text = String(decoding: scanner[..<end], as: UTF8.self)
        scanner = scanner[end...]
        return text.trimmingSpaces
    }

    /// Reads `"…"` with `\` escapes; an unterminated string ends with the input.
    private static func quotedString(_ scanner: inout ArraySlice<UInt8>) -> String {
        scanner = scanner.dropFirst()
        var bytes: [UInt8] = []
        while let byte = scanner.popFirst() {
            if byte == UInt8(ascii: "\"") { break }
            if byte == UInt8(ascii: "\\"), let escaped = scanner.popFirst() {
                bytes.append(escaped)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs (header whitespace, RFC 9110 §5.6.3).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
