internal import CPCRE2

/// A `$regex` pattern, compiled once when the selector is parsed.
///
/// CouchDB checks a pattern with Erlang's `re:compile/1` and matches with `re:run(Value, Pattern, [{capture,
/// none}])`, both without the `unicode` option: PCRE over the UTF-8 bytes. So is this, on PCRE2 with the same
/// settings: `.` matches one byte (`"é"` is two), `\d \w \s` and `(?i)` know ASCII only, LF alone ends a line
/// for `$` and `.`, PCRE's syntax compiles (`(?|…)`, `(?P<name>…)`, `\K`, recursion) and `\x{…}` above 255
/// does not. Matching is unanchored: write `^…$`.
public struct RegexPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written in the selector.
    public let source: String
    /// The compiled pattern; PCRE2 documents a compiled pattern as safe to match from many threads.
    private let compiled: CompiledRegex

    /// Compiles a pattern.
    ///
    /// ```swift
    /// let pattern = try RegexPattern("^Jo(h)?n$")
    /// pattern.matches("John")   // true
    /// ```
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with ``QueryErrorKind/badArg`` when it does not compile.
    public init(_ source: String) throws(CloudantError) {
        guard let compiled = CompiledRegex(source) else {
            throw QueryErrorKind.badArg.error(
                "Bad argument for operator $regex: the pattern does not compile as a regular expression.",
                field: "$regex")
        }
        self.source = source
        self.compiled = compiled
    }

    /// Whether the pattern matches somewhere in `string`, within ``MatchLimits/default``; a string that
    /// would take longer than that counts as not matching. Use ``matches(_:limits:)`` to learn that it did.
    public func matches(_ string: String) -> Bool {
        (try? matches(string, limits: .default)) ?? false
    }

    /// Whether the pattern matches somewhere in `string`, giving up past `limits.effectiveRegexStepLimit`
    /// steps (PCRE's match limit, which CouchDB's `re:run` runs under too).
    ///
    /// ```swift
    /// let pattern = try RegexPattern("(a+)+$")
    /// try pattern.matches(String(repeating: "a", count: 40) + "!", limits: .default)   // throws: over the limit
    /// ```
    ///
    /// - Throws: `CloudantError.Code.invalidInput` with ``QueryErrorKind/badArg`` and field `$regex` when
    ///   the evaluation needs more steps than the limit; `CancellationError` when `limits.cancellation` was
    ///   cancelled before it began.
    public func matches(_ string: String, limits: MatchLimits) throws -> Bool {
        try limits.cancellation?.check()
        switch compiled.match(string, stepLimit: limits.effectiveRegexStepLimit) {
        case .match: return true
        case .noMatch: return false
        case .overLimit:
            // CouchDB's `re:run` answers "no match" here, and the document silently drops out of the answer;
            // this says so instead, so that no answer is missing a document without a word.
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
    }

    public var description: String { source }

    public static func == (lhs: RegexPattern, rhs: RegexPattern) -> Bool { lhs.source == rhs.source }

    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

/// A PCRE2 pattern compiled as Erlang's `re` compiles a binary pattern with no options: bytes, LF as the
/// newline, `\R` for any line ending.
final class CompiledRegex: @unchecked Sendable {
    /// What one match attempt came to.
    enum Outcome { case match, noMatch, overLimit }

    // Immutable after init; PCRE2 reads a compiled pattern from any thread.
    private let code: OpaquePointer

    init?(_ pattern: String) {
        guard let context = pcre2_compile_context_create_8(nil) else { return nil }
        defer { pcre2_compile_context_free_8(context) }
        pcre2_set_newline_8(context, UInt32(PCRE2_NEWLINE_LF))
        pcre2_set_bsr_8(context, UInt32(PCRE2_BSR_UNICODE))
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = Array(pattern.utf8).withUnsafeBufferPointer { bytes in
            pcre2_compile_8(bytes.baseAddress ?? UnsafePointer(bitPattern: 1), bytes.count, 0, &errorCode, &errorOffset, context)
        }
        guard let compiled else { return nil }
        code = compiled
    }

    deinit { pcre2_code_free_8(code) }

    /// Matches `subject`'s UTF-8 bytes, at most `stepLimit` steps.
    func match(_ subject: String, stepLimit: Int) -> Outcome {
        guard let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return .overLimit }
        defer { pcre2_match_data_free_8(data) }
        guard let context = pcre2_match_context_create_8(nil) else { return .overLimit }
        defer { pcre2_match_context_free_8(context) }
        pcre2_set_match_limit_8(context, UInt32(clamping: stepLimit))
        var subject = subject
        let result = subject.withUTF8 { bytes in
            pcre2_match_8(code, bytes.baseAddress ?? UnsafePointer(bitPattern: 1), bytes.count, 0, 0, data, context)
        }
        if result >= 0 { return .match }
        switch result {
        case PCRE2_ERROR_NOMATCH, PCRE2_ERROR_PARTIAL: return .noMatch
        default: return .overLimit  // the match, depth or heap limit: it could not be decided
        }
    }
}
