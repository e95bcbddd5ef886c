internal import Foundation

/// A `$regex` pattern, compiled once when the selector is parsed.
///
/// Patterns use ICU regular-expression syntax (`NSRegularExpression`), which agrees with CouchDB's PCRE on
/// everyday patterns (classes, anchors, quantifiers, groups, `(?i)`); PCRE-only constructs such as
/// recursion or `\K` do not compile and are rejected as `bad_arg`. Matching is unanchored: write `^…$`.
public struct RegexPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written in the selector.
    public let source: String
    /// The compiled expression. `NSRegularExpression` is immutable and documented as thread-safe.
    private let compiled: NSRegularExpression

    /// Compiles a pattern.
    ///
    /// ```swift
    /// let pattern = try RegexPattern("^Jo(h)?n$")
    /// pattern.matches("John")   // true
    /// ```
    ///
    /// - Throws: ``CloudantError/Code/invalidValue`` with ``QueryErrorKind/badArg`` when it does not compile.
    public init(_ source: String) throws(CloudantError) {
        do {
            compiled = try NSRegularExpression(pattern: source)
        } catch {
            throw QueryErrorKind.badArg.error(
                "Bad argument for operator $regex: the pattern does not compile as a regular expression.",
                field: "$regex")
        }
        self.source = source
    }

    /// Whether the pattern matches somewhere in `string`.
    public func matches(_ string: String) -> Bool {
        compiled.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
    }

    public var description: String { source }

    public static func == (lhs: RegexPattern, rhs: RegexPattern) -> Bool { lhs.source == rhs.source }

    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}
