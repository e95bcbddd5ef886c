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
    /// - Throws: `CloudantError.Code.invalidInput` with ``QueryErrorKind/badArg`` when it does not compile.
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

    /// Whether the pattern matches somewhere in `string`, within ``MatchLimits/default``; a string that
    /// would take longer than that counts as not matching. Use ``matches(_:limits:)`` to learn that it did.
    public func matches(_ string: String) -> Bool {
        (try? matches(string, limits: .default)) ?? false
    }

    /// How many engine steps lie between two of ICU's progress reports (its `TIMER_INITIAL_VALUE`).
    static let stepsPerProgressReport = 10_000

    /// Whether the pattern matches somewhere in `string`, giving up past `limits.effectiveRegexStepLimit`
    /// engine steps or once `limits.cancellation` is cancelled.
    ///
    /// ```swift
    /// let pattern = try RegexPattern("(a+)+$")
    /// try pattern.matches(String(repeating: "a", count: 40) + "!", limits: .default)   // throws: over the limit
    /// ```
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with ``QueryErrorKind/badArg`` and field `$regex` when
    ///   the evaluation needs more steps than the limit; `CancellationError` when cancelled.
    public func matches(_ string: String, limits: MatchLimits) throws -> Bool {
        try limits.cancellation?.check()
        let allowed = limits.regexProgressReports
        var reports = 0
        var cancelled = false
        var matched = false
        // ICU calls back every 10 000 steps while it matches (`.reportProgress`); stopping there is the
        // only way to end a runaway match from outside it.
        compiled.enumerateMatches(in: string, options: [.reportProgress], range: NSRange(string.startIndex..., in: string)) {
            result, _, stop in
            if result != nil {
                matched = true
                stop.pointee = true
                return
            }
            reports += 1
            if limits.cancellation?.isCancelled == true {
                cancelled = true
                stop.pointee = true
            } else if reports > allowed {
                stop.pointee = true
            }
        }
        if matched { return true }
        if cancelled { throw CancellationError() }
        if reports > allowed {
            let limit = limits.effectiveRegexStepLimit
            let raise =
                limit < MatchLimits.maximumRegexStepLimit
                ? ", or raise the limit (cloudant serve --regex-step-limit, at most \(MatchLimits.maximumRegexStepLimit))" : ""
            throw QueryErrorKind.badArg.error(
                "Bad argument for operator $regex: matching the pattern took more than \(limit) steps on one value, "
                    + "the regex step limit. Simplify the pattern (nested quantifiers such as (a+)+ backtrack "
                    + "exponentially) or anchor it\(raise).",
                field: "$regex")
        }
        return false
    }

    public var description: String { source }

    public static func == (lhs: RegexPattern, rhs: RegexPattern) -> Bool { lhs.source == rhs.source }

    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}
