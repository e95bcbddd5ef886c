/// Translates a `$text` search, written in the Lucene query syntax Cloudant Search accepts, into an SQLite
/// FTS5 query.
///
/// Supported: terms and `"phrases"` (any of them may match, Lucene's default `OR`), `prefix*`, `AND`, `OR`,
/// `NOT`, `&&`, `||`, `+required`, `-excluded`, parentheses, and `field:term` for a field the text index
/// lists. Not supported (a typed error says so): fuzzy `~`, boosts `^`, ranges `[a TO b]`, single-character
/// `?` wildcards. CDTDatastore's form `{"$search": "…"}` is accepted too.
///
/// ```swift
/// try TextSearchQuery.ftsMatch("doctor AND (book* OR \"reading list\")", fields: [])
/// // "doctor" AND ("book" * OR "reading list")
/// ```
public enum TextSearchQuery {
    /// The FTS5 MATCH expression for a `$text` argument.
    ///
    /// - Parameters:
    ///   - search: The `$text` argument (a string, or CDTDatastore's `{"$search": …}`).
    ///   - fields: The text index's fields, in order; `field:term` searches column `c<i>` of field *i*.
    /// - Throws: `CloudantError` with ``QueryErrorKind/badArg`` for syntax this store does not translate
    ///   or a field the index does not have.
    public static func ftsMatch(_ search: JSONValue, fields: [String]) throws -> String {
        let text: String
        switch search {
        case .string(let string): text = string
        case .number, .bool: text = search.jsonString()
        case .object(let object) where object["$search"]?.stringValue != nil: text = object["$search"]?.stringValue ?? ""
        default: throw QueryErrorKind.badArg.error("$text takes a search string.", field: "$text")
        }
        var parser = Parser(tokens: try tokenize(text), fields: fields)
        let expression = try parser.parseOr()
        guard parser.position == parser.tokens.count else {
            throw QueryErrorKind.badArg.error("Unbalanced parentheses in the $text search.", field: "$text")
        }
        guard let expression else {
            throw QueryErrorKind.badArg.error("The $text search has no terms.", field: "$text")
        }
        return expression
    }

    enum Token: Equatable {
        case word(String, prefix: Bool)
        case phrase(String)
        case and, or, not, open, close
        case required, excluded
        case field(String)
    }

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        var characters = Array(text)[...]
        while let character = characters.first {
            switch character {
            case _ where character.isWhitespace: characters.removeFirst()
            case "(": tokens.append(.open); characters.removeFirst()
            case ")": tokens.append(.close); characters.removeFirst()
            case "+": tokens.append(.required); characters.removeFirst()
            case "-": tokens.append(.excluded); characters.removeFirst()
            case "\"":
                characters.removeFirst()
                guard let end = characters.firstIndex(of: "\"") else {
                    throw QueryErrorKind.badArg.error("A phrase in the $text search has no closing quote.", field: "$text")
                }
                tokens.append(.phrase(String(characters[..<end])))
                characters = characters[(end + 1)...]
            case "~", "^", "[", "]", "{", "}", "?":
                throw QueryErrorKind.badArg.error(
                    "The $text search uses \(character), which this store's full-text search does not support.",
                    field: "$text")
            default:
                var word = ""
                while let next = characters.first, !next.isWhitespace, !"()\"".contains(next) {
                    if next == "\\", characters.count > 1 {
                        characters.removeFirst()
                    } else if "~^[]{}?".contains(next) {
                        throw QueryErrorKind.badArg.error(
                            "The $text search uses \(next), which this store's full-text search does not support.",
                            field: "$text")
                    }
                    word.append(characters.removeFirst())
                    if next == ":" && word.count > 1 { break }
                }
                if word == "&&" || word == "AND" { tokens.append(.and) }
                else if word == "||" || word == "OR" { tokens.append(.or) }
                else if word == "!" || word == "NOT" { tokens.append(.not) }
                else if word.hasSuffix(":") { tokens.append(.field(String(word.dropLast()))) }
                else if word.hasSuffix("*") { tokens.append(.word(String(word.dropLast()), prefix: true)) }
                else { tokens.append(.word(word, prefix: false)) }
            }
        }
        return tokens
    }

    /// A recursive-descent parser producing FTS5 text: `or := and (OR and)*`; `and := unary ((AND)? unary)*`
    /// where juxtaposition is Lucene's OR; `unary := (+|-|NOT)? primary`.
    struct Parser {
        let tokens: [Token]
        let fields: [String]
        var position = 0

        init(tokens: [Token], fields: [String]) {
            self.tokens = tokens
            self.fields = fields
        }

        mutating func parseOr() throws -> String? {
            var required: [String] = []
            var optional: [String] = []
            var excluded: [String] = []
            var pendingAnd = false
            while position < tokens.count, tokens[position] != .close {
                switch tokens[position] {
                case .or:
                    position += 1
                    continue
                case .and:
                    position += 1
                    pendingAnd = true
                    if let last = optional.popLast() { required.append(last) }
                    continue
                default: break
                }
                var mode = pendingAnd ? Token.required : Token.or
                pendingAnd = false
                if tokens[position] == .required || tokens[position] == .excluded || tokens[position] == .not {
                    mode = tokens[position] == .required ? .required : .excluded
                    position += 1
                }
                guard let term = try parsePrimary() else { break }
                switch mode {
                case .required: required.append(term)
                case .excluded: excluded.append(term)
                default: optional.append(term)
                }
            }
            var expression: String?
            if !required.isEmpty {
                expression = required.joined(separator: " AND ")
            } else if !optional.isEmpty {
                expression = optional.count == 1 ? optional[0] : "(" + optional.joined(separator: " OR ") + ")"
            }
            guard let base = expression else {
                if !excluded.isEmpty {
                    throw QueryErrorKind.badArg.error("A $text search cannot only exclude terms.", field: "$text")
                }
                return nil
            }
            return excluded.isEmpty ? base : "(" + base + ") NOT (" + excluded.joined(separator: " OR ") + ")"
        }

        mutating func parsePrimary() throws -> String? {
            guard position < tokens.count else { return nil }
            let token = tokens[position]
            position += 1
            switch token {
            case .word(let word, let prefix):
                return quoted(word) + (prefix ? " *" : "")
            case .phrase(let phrase):
                return quoted(phrase)
            case .open:
                let inner = try parseOr()
                guard position < tokens.count, tokens[position] == .close else {
                    throw QueryErrorKind.badArg.error("Unbalanced parentheses in the $text search.", field: "$text")
                }
                position += 1
                return inner.map { "(" + $0 + ")" }
            case .field(let name):
                guard let column = fields.firstIndex(of: name) else {
                    throw QueryErrorKind.badArg.error(
                        "The text index does not list the field \(name); add it to the index's fields to search it.",
                        field: name)
                }
                guard let term = try parsePrimary() else {
                    throw QueryErrorKind.badArg.error("\(name): needs a term.", field: name)
                }
                return "c\(column) : " + term
            default:
                throw QueryErrorKind.badArg.error("The $text search has an operator where a term belongs.", field: "$text")
            }
        }

        /// An FTS5 string: every term is quoted, so no user text is read as FTS5 syntax.
        private func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
