/// Limits and switches for parsing untrusted XML (CDA documents, GPX files).
///
/// Whatever these say, parsing never touches the network (`XML_PARSE_NONET`), never substitutes entities
/// into the tree (no `XML_PARSE_NOENT`), never loads or applies an external DTD (no `XML_PARSE_DTDLOAD` /
/// `XML_PARSE_DTDATTR`), never lifts libxml2's entity-amplification limits (no `XML_PARSE_HUGE`) and refuses
/// every external entity through a loader that loads nothing.
///
/// ```swift
/// let document = try CDADocument(parsing: data, limits: XMLParseLimits(maximumBytes: 8 << 20))
/// ```
public struct XMLParseLimits: Hashable, Sendable {
    /// Inputs larger than this many bytes are refused before libxml2 sees them (default 64 MiB).
    public var maximumBytes: Int
    /// Whether to keep what libxml2 can recover from malformed XML (trailing content after the root,
    /// for example) instead of failing. Off by default; the Apple Health importer turns it on and reports it.
    public var recover: Bool

    /// Creates parse limits.
    public init(maximumBytes: Int = 64 << 20, recover: Bool = false) {
        self.maximumBytes = maximumBytes
        self.recover = recover
    }
}
