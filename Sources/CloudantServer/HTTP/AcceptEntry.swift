/// One entry of an `Accept` header as mochiweb's `parse_qvalues/1` reads it, for ``MediaType/accepts(_:in:)``.
struct AcceptEntry: Equatable {
    /// The media range lowercased, with its parameters other than `q` joined back on (`text/html;level=1`).
    var type: String
    /// The quality, 1 when not given.
    var quality: Double

    /// The entries of `header`, or nil when any of them cannot be read: a parameter without exactly one `=`,
    /// or a `q` that is not `0` or `1` with up to three decimals, or above 1. Empty entries are skipped.
    static func parse(_ header: String) -> [AcceptEntry]? {
        var entries: [AcceptEntry] = []
        for item in header.lowercased().split(separator: ",") {
            let pieces = item.split(separator: ";")
            guard let range = pieces.first else { continue }
            var quality = 1.0
            var kept: [String] = []
            var parameters = pieces.dropFirst().map { $0.filter { !$0.isWhitespace } }[...]
            while let parameter = parameters.popFirst() {
                let sides = parameter.split(separator: "=", omittingEmptySubsequences: false)
                guard sides.count == 2, !sides[0].isEmpty, !sides[1].isEmpty else { return nil }
                if sides[0] == "q" {
                    guard let value = Self.quality(sides[1]) else { return nil }
                    quality = value
                    // The parameters after `q` are kept as they are, as mochiweb keeps them.
                    kept += parameters
                    break
                }
                kept.append(parameter)
            }
            let bare = Self.strippingSpaces(range)
            entries.append(AcceptEntry(type: ([bare] + kept).joined(separator: ";"), quality: quality))
        }
        return entries
    }

    /// `0`, `1`, or either followed by `.` and one to three digits, no greater than 1.
    private static func quality(_ text: Substring) -> Double? {
        let bytes = Array(text.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return nil }
        if bytes.count > 1 {
            let decimals = bytes.dropFirst(2)
            guard bytes[1] == UInt8(ascii: "."), (1...3).contains(decimals.count),
                decimals.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
            else { return nil }
        }
        guard let value = Double(String(text)), value <= 1 else { return nil }
        return value
    }

    /// The text without leading and trailing spaces (Erlang's `string:strip/1` strips spaces only).
    private static func strippingSpaces(_ text: Substring) -> String {
        guard let first = text.firstIndex(where: { $0 != " " }), let last = text.lastIndex(where: { $0 != " " }) else {
            return ""
        }
        return String(text[first...last])
    }
}
