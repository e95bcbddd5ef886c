import CloudantCore
import Testing

/// `$regex` matches as CouchDB's does: Erlang's `re` (PCRE) over the value's UTF-8 bytes, with no `unicode`
/// option. The cases are those CouchDB 3.5 answered (`_find` over the same documents).
@Suite("$regex: PCRE over bytes, as Erlang's re")
struct RegexSemanticsTests {
    static func matches(_ pattern: String, _ value: String) throws -> Bool {
        try RegexPattern(pattern).matches(value, limits: .default)
    }

    @Test func aDotMatchesOneByteSoATwoByteCharacterIsTwo() throws {
        #expect(try Self.matches("^.$", "a"))
        #expect(try !Self.matches("^.$", "\u{E9}"))
        #expect(try Self.matches("^..$", "\u{E9}"))
    }

    @Test func classesAndCaselessMatchingKnowASCIIOnly() throws {
        #expect(try Self.matches("^\\w$", "a"))
        #expect(try !Self.matches("^\\w$", "\u{E9}"))
        #expect(try !Self.matches("^\\d$", "\u{663}"))  // ARABIC-INDIC DIGIT THREE
        #expect(try Self.matches("(?i)\u{E9}", "\u{E9}x"))
        #expect(try !Self.matches("(?i)\u{E9}", "\u{C9}"))  // É is not é caselessly, byte by byte
        #expect(try Self.matches("(?i)abc", "xABCx"))
    }

    @Test func onlyLineFeedEndsALine() throws {
        #expect(try Self.matches("a.b", "a\rb"))
        #expect(try !Self.matches("a.b", "a\nb"))
        #expect(try !Self.matches("^a$", "a\r"))
        #expect(try !Self.matches("^a$", "a\u{2028}"))
        #expect(try Self.matches("^a$", "a\n"))  // `$` before a final newline, as PCRE has it
        #expect(try Self.matches("^a\\Rb$", "a\r\nb"))
    }

    @Test func pcreSyntaxCompilesAndICUsDoesNot() throws {
        #expect(try Self.matches("(?|(a)|(b))", "b"))
        #expect(try Self.matches("(?P<n>a)(?P=n)", "xaa"))
        #expect(try Self.matches("a\\Kb", "ab"))
        #expect(try Self.matches("^(\\((?:[^()]|(?1))*\\))$", "(a(b)c)"))  // recursion
        #expect(try !Self.matches("[[a-z]&&[b]]", "a\rb"))  // not ICU's set intersection: a class, then "&&[b]]"
        #expect(try Self.matches("[[a-z]&&[b]]", "a&&b]"))
    }

    @Test func patternsThatDoNotCompileAreBadArg() {
        for pattern in ["\\x{663}", "(", "a{2,1}", "[z-a]", "(?<n>a)(?<n>b)"] {
            #expect(throws: CloudantError.self, "\(pattern)") { try RegexPattern(pattern) }
        }
    }

    @Test func aPatternWithANulByteMatchesIt() throws {
        #expect(try Self.matches("a\u{0}b", "xa\u{0}b"))
        #expect(try !Self.matches("a\u{0}b", "ab"))
    }
}
