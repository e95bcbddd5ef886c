/// Which attachments the store keeps gzip-compressed, as CouchDB's `[attachments]` settings say
/// (`compressible_types`, `compression_level`).
///
/// The defaults are CouchDB's, so an attachment written here gets the same stored bytes and the same
/// `digest` as on a CouchDB with default settings: a replica cannot tell which side computed
/// it. Binary types (images, PDFs, zips) are kept as written.
///
/// ```swift
/// var options = StoreOptions()
/// options.attachmentCompression = AttachmentCompression(compressibleTypes: ["text/*"], level: 6)
/// options.attachmentCompression = .none   // keep every attachment as written
/// ```
public struct AttachmentCompression: Sendable, Hashable {
    /// MIME type patterns whose attachments are compressed; `*` matches any run of characters and case is
    /// ignored, as in CouchDB. Parameters (`; charset=utf-8`) are ignored.
    public var compressibleTypes: [String]
    /// zlib's level, 1 (fastest) to 9 (smallest); 0 turns compression off.
    public var level: Int

    /// CouchDB's defaults: `text/*, application/javascript, application/json, application/xml` at level 8.
    public static let couchDB = AttachmentCompression(
        compressibleTypes: ["text/*", "application/javascript", "application/json", "application/xml"], level: 8)

    /// No compression: every attachment is kept as written.
    public static let none = AttachmentCompression(compressibleTypes: [], level: 0)

    /// Creates a policy.
    public init(compressibleTypes: [String], level: Int) {
        self.compressibleTypes = compressibleTypes
        self.level = level
    }

    /// Whether an attachment of `contentType` is kept compressed.
    public func compresses(_ contentType: String) -> Bool {
        guard (1...9).contains(level) else { return false }
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first
            .map { $0.trimmingWhitespace().lowercased() } ?? ""
        return compressibleTypes.contains { Self.glob($0.trimmingWhitespace().lowercased(), matches: mediaType) }
    }

    /// Whether `pattern` (with `*` for any run of characters) matches all of `text`.
    static func glob(_ pattern: String, matches text: String) -> Bool {
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count > 1 else { return pattern == text }
        guard text.hasPrefix(pieces[0]), let last = pieces.last, text.dropFirst(pieces[0].count).hasSuffix(last) else {
            return false
        }
        var rest = Substring(text.dropFirst(pieces[0].count).dropLast(last.count))
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
