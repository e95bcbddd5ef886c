/// How a design function's source becomes a function: CouchDB's engines take an anonymous
/// `function (doc) {…}` written as a statement (which JavaScript itself refuses: a function statement needs a
/// name) as the function expression it means.
///
/// CouchDB 3.5 gets there two ways: QuickJS is patched to parse such a statement as an expression, and with
/// SpiderMonkey the source is parsed and the last anonymous function declaration turned into an expression
/// statement. Both leave every other source alone, and both evaluate the whole program, whose completion value
/// must be the function. So the source is first run as written (an arrow function, a parenthesised or
/// assigned function expression); only when that is a syntax error is the last top-level anonymous function
/// statement put in parentheses, and the program run again.
///
/// ```swift
/// FunctionSource.parenthesisingLastAnonymousFunction("function(doc) { emit(doc._id, 1) };")
/// // "(function(doc) { emit(doc._id, 1) });"
/// ```
enum FunctionSource {
    /// `source` with its last top-level anonymous function statement in parentheses, or nil when it has none.
    static func parenthesisingLastAnonymousFunction(_ source: String) -> String? {
        let text = Array(source.utf8)
        var scanner = Scanner(text: text)
        guard let (start, end) = scanner.lastAnonymousFunctionStatement() else { return nil }
        var rewritten = [UInt8]()
        rewritten.reserveCapacity(text.count + 2)
        rewritten += text[..<start]
        rewritten.append(UInt8(ascii: "("))
        rewritten += text[start..<end]
        rewritten.append(UInt8(ascii: ")"))
        rewritten += text[end...]
        return String(decoding: rewritten, as: UTF8.self)
    }

    /// A lexical scan that knows enough JavaScript to tell code from strings, template literals, comments and
    /// regular expression literals, and to match brackets.
    struct Scanner {
        let text: [UInt8]
        var position = 0

        init(text: [UInt8]) { self.text = text }

        /// The byte range of the last `function (…) {…}` (or `async function`, or a generator) that starts a
        /// statement at the top level.
        mutating func lastAnonymousFunctionStatement() -> (Int, Int)? {
            var found: (Int, Int)?
            var depth = 0
            // Whether the next token starts a statement: at the start, after `;`, `{` or `}`.
            var statementStart = true
            var regexAllowed = true
            while let token = nextToken(regexAllowed: &regexAllowed) {
                switch token {
                case .open(let byte):
                    depth += 1
                    statementStart = byte == UInt8(ascii: "{")
                case .close(let byte):
                    depth -= 1
                    statementStart = byte == UInt8(ascii: "}")
                case .semicolon:
                    statementStart = true
                case .word(let word, let wordStart):
                    if depth == 0, statementStart, let end = anonymousFunction(startingWith: word, at: wordStart) {
                        found = (wordStart, end)
                        position = end
                        (statementStart, regexAllowed) = (true, true)
                    } else {
                        statementStart = false
                    }
                case .other:
                    statementStart = false
                }
            }
            return found
        }

        /// What ``nextToken(regexAllowed:)`` read, as far as finding statements and matching brackets needs.
        enum Token {
            /// `{`, `(` or `[`.
            case open(UInt8)
            /// `}`, `)` or `]`.
            case close(UInt8)
            /// `;`.
            case semicolon
            /// An identifier or keyword, and where it starts.
            case word(String, start: Int)
            /// A string, template, regular expression or number literal, or any other punctuation.
            case other
        }

        /// Skips space and comments and reads one token, or returns nil at the end of the text.
        ///
        /// `regexAllowed` says whether a `/` here starts a regular expression (no value precedes it); it is
        /// updated for the token read, so that every scan tells a regular expression from a division alike.
        private mutating func nextToken(regexAllowed: inout Bool) -> Token? {
            skipSpaceAndComments()
            guard position < text.count else { return nil }
            let byte = text[position]
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                skipString(quote: byte)
                regexAllowed = false
                return .other
            case UInt8(ascii: "`"):
                skipTemplate()
                regexAllowed = false
                return .other
            case UInt8(ascii: "/"):
                if regexAllowed { skipRegex() } else { position += 1 }
                regexAllowed = !regexAllowed
                return .other
            case UInt8(ascii: "{"), UInt8(ascii: "("), UInt8(ascii: "["):
                position += 1
                regexAllowed = true
                return .open(byte)
            case UInt8(ascii: "}"), UInt8(ascii: ")"), UInt8(ascii: "]"):
                position += 1
                regexAllowed = byte == UInt8(ascii: "}")
                return .close(byte)
            case UInt8(ascii: ";"):
                position += 1
                regexAllowed = true
                return .semicolon
            default:
                if isIdentifierStart(byte) {
                    let start = position
                    let word = readWord()
                    regexAllowed = Self.keywordsBeforeExpressions.contains(word)
                    return .word(word, start: start)
                }
                if isDigit(byte) {
                    while position < text.count, isIdentifierPart(text[position]) || text[position] == UInt8(ascii: ".") {
                        position += 1
                    }
                    regexAllowed = false
                } else {
                    position += 1
                    regexAllowed = true
                }
                return .other
            }
        }

        /// Words after which a `/` starts a regular expression.
        static let keywordsBeforeExpressions: Set<String> = [
            "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield", "await",
        ]

        /// When `word` (just read) begins an anonymous function statement, the end of its body.
        private mutating func anonymousFunction(startingWith word: String, at start: Int) -> Int? {
            let saved = position
            var keyword = word
            if keyword == "async" {
                skipSpaceAndComments()
                guard position < text.count, isIdentifierStart(text[position]) else { position = saved; return nil }
                keyword = readWord()
            }
            guard keyword == "function" else { position = saved; return nil }
            skipSpaceAndComments()
            if position < text.count, text[position] == UInt8(ascii: "*") {
                position += 1
                skipSpaceAndComments()
            }
            guard position < text.count, text[position] == UInt8(ascii: "(") else { position = saved; return nil }
            guard skipBalanced(), skipSpaceAndCommentsReturningTrue(), position < text.count, text[position] == UInt8(ascii: "{"),
                skipBalanced()
            else { position = saved; return nil }
            return position
        }

        /// Skips from an opening bracket to just past its match; false when the text ends first.
        private mutating func skipBalanced() -> Bool {
            var depth = 0
            var regexAllowed = true
            while let token = nextToken(regexAllowed: &regexAllowed) {
                switch token {
                case .open: depth += 1
                case .close:
                    depth -= 1
                    if depth == 0 { return true }
                case .semicolon, .word, .other: break
                }
            }
            return false
        }

        private mutating func skipSpaceAndCommentsReturningTrue() -> Bool {
            skipSpaceAndComments()
            return true
        }

        private mutating func skipSpaceAndComments() {
            while position < text.count {
                if isSpace(text[position]) {
                    position += 1
                } else if text[position] == UInt8(ascii: "/"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "/") {
                    skipLineComment()
                } else if text[position] == UInt8(ascii: "/"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "*") {
                    skipBlockComment()
                } else {
                    return
                }
            }
        }

        private mutating func readWord() -> String {
            let start = position
            while position < text.count, isIdentifierPart(text[position]) { position += 1 }
            return String(decoding: text[start..<position], as: UTF8.self)
        }

        private mutating func skipLineComment() {
            while position < text.count, text[position] != UInt8(ascii: "\n") { position += 1 }
        }

        private mutating func skipBlockComment() {
            position += 2
            while position + 1 < text.count, !(text[position] == UInt8(ascii: "*") && text[position + 1] == UInt8(ascii: "/")) {
                position += 1
            }
            position = min(text.count, position + 2)
        }

        private mutating func skipString(quote: UInt8) {
            position += 1
            while position < text.count, text[position] != quote, text[position] != UInt8(ascii: "\n") {
                position += text[position] == UInt8(ascii: "\\") ? 2 : 1
            }
            position = min(text.count, position + 1)
        }

        private mutating func skipTemplate() {
            position += 1
            while position < text.count, text[position] != UInt8(ascii: "`") {
                if text[position] == UInt8(ascii: "\\") {
                    position += 2
                } else if text[position] == UInt8(ascii: "$"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "{") {
                    position += 1
                    _ = skipBalanced()
                } else {
                    position += 1
                }
            }
            position = min(text.count, position + 1)
        }

        private mutating func skipRegex() {
            position += 1
            var inClass = false
            while position < text.count, text[position] != UInt8(ascii: "\n") {
                let byte = text[position]
                if byte == UInt8(ascii: "\\") {
                    position += 2
                    continue
                }
                if byte == UInt8(ascii: "[") { inClass = true } else if byte == UInt8(ascii: "]") { inClass = false }
                position += 1
                if byte == UInt8(ascii: "/"), !inClass { break }
            }
            while position < text.count, isIdentifierPart(text[position]) { position += 1 }
        }

        private func isSpace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
        }
        private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        private func isIdentifierStart(_ byte: UInt8) -> Bool {
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "$") || byte >= 0x80
        }
        private func isIdentifierPart(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }
    }
}
