/// `Accept-Encoding` as CouchDB reads it (mochiweb's `accepted_encodings`): which content codings a client
/// takes, with q-values.
enum ContentCoding {
    /// Whether `header` accepts `coding`: listed with a non-zero q-value, or covered by `*` without being
    /// refused by name. No header accepts only `identity`.
    static func accepts(_ coding: String, in header: String?) -> Bool {
        guard let header else { return coding == "identity" }
        var named: Double?
        var wildcard: Double?
        for item in header.split(separator: ",") {
            let fields = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = fields.first, !name.isEmpty else { continue }
            var q = 1.0
            for parameter in fields.dropFirst() where parameter.hasPrefix("q=") {
                q = Double(parameter.dropFirst(2)) ?? 0
            }
            if name == coding || (coding == "gzip" && name == "x-gzip") { named = q }
            if name == "*" { wildcard = q }
        }
        if let named { return named > 0 }
        if let wildcard { return wildcard > 0 }
        return coding == "identity"
    }
}
