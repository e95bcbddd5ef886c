/// `chttpd_auth/password_regexp`: the regular expressions a new password in a user document must match, as
/// CouchDB's `couch_users_db:validate_password` reads the setting: an Erlang list whose items are
/// `{"RegExp", "Reason"}`, `{"RegExp"}` or `"RegExp"`. The first expression the password does not match
/// refuses it with `400 bad_request` "Password does not conform to requirements." and the item's reason, when
/// it has one. A setting that is not such a list, or an expression that does not compile, refuses every
/// password with `403 forbidden` "Server cannot hash passwords at this time.", as CouchDB does.
struct PasswordRequirements {
    static let refusal = "Password does not conform to requirements."
    static let unreadable = "Server cannot hash passwords at this time."

    private let setting: String?

    /// - Parameter setting: the configuration value; `nil`, empty or `[]` requires nothing.
    init(_ setting: String?) {
        self.setting = setting
    }

    /// - Throws: ``HTTPFailure`` as the type's documentation says.
    func check(_ password: String) throws {
        guard let setting, !["", "[]"].contains(setting.trimmingCharacters(in: .whitespaces)) else { return }
        guard let items = ErlangStringList(parsing: setting)?.items else { throw HTTPFailure.forbidden(Self.unreadable) }
        for item in items {
            guard let expression = try? Regex(item.pattern) else { throw HTTPFailure.forbidden(Self.unreadable) }
            guard password.contains(expression) else {
                let reason = item.reason.map { $0.isEmpty ? Self.refusal : Self.refusal + " " + $0 } ?? Self.refusal
                throw HTTPFailure.badRequest(reason)
            }
        }
    }
}

/// The part of Erlang's term syntax `password_regexp` uses: a list of strings and of one- or two-string
/// tuples, with Erlang's string escapes (`\\`, `\"`, `\n`, `\d` for DEL, octal and `\x` codes…).
private struct ErlangStringList {
    struct Item {
        var pattern: String
        var reason: String?
    }

    private(set) var items: [Item] = []
    private var characters: [Character]
    private var position = 0

    init?(parsing text: String) {
        characters = Array(text)
        guard expect("[") else { return nil }
        if peek() == "]" {
            position += 1
        } else {
            while true {
                guard let item = parseItem() else { return nil }
                items.append(item)
                if expect(",") { continue }
                guard expect("]") else { return nil }
                break
            }
        }
        // An Erlang term ends with an optional full stop.
        _ = expect(".")
        guard peek() == nil else { return nil }
    }

    private mutating func parseItem() -> Item? {
        if peek() == "\"" { return parseString().map { Item(pattern: $0) } }
        guard expect("{"), let pattern = parseString() else { return nil }
        var reason: String?
        if expect(",") {
            guard let text = parseString() else { return nil }
            reason = text
        }
        guard expect("}") else { return nil }
        return Item(pattern: pattern, reason: reason)
    }

    private mutating func parseString() -> String? {
        guard expect("\"") else { return nil }
        var text = ""
        while position < characters.count {
            let character = characters[position]
            position += 1
            switch character {
            case "\"": return text
            case "\\":
                guard position < characters.count else { return nil }
                let escaped = characters[position]
                position += 1
                text.append(unescape(escaped))
            default: text.append(character)
            }
        }
        return nil
    }

    /// The character an escape stands for (`\` already read, `escaped` the one after it).
    private mutating func unescape(_ escaped: Character) -> Character {
        switch escaped {
        case "b": return "\u{8}"
        case "d": return "\u{7F}"
        case "e": return "\u{1B}"
        case "f": return "\u{C}"
        case "n": return "\n"
        case "r": return "\r"
        case "s": return " "
        case "t": return "\t"
        case "v": return "\u{B}"
        case "0"..."7":
            var digits = String(escaped)
            while digits.count < 3, position < characters.count, ("0"..."7").contains(characters[position]) {
                digits.append(characters[position])
                position += 1
            }
            return Character(Unicode.Scalar(UInt8(digits, radix: 8) ?? 0))
        case "x":
            var digits = ""
            while digits.count < 2, position < characters.count, characters[position].isHexDigit {
                digits.append(characters[position])
                position += 1
            }
            return Character(Unicode.Scalar(UInt8(digits, radix: 16) ?? 0))
        default: return escaped
        }
    }

    private mutating func skipBlanks() {
        while position < characters.count, characters[position].isWhitespace { position += 1 }
    }

    private mutating func peek() -> Character? {
        skipBlanks()
        return position < characters.count ? characters[position] : nil
    }

    private mutating func expect(_ character: Character) -> Bool {
        guard peek() == character else { return false }
        position += 1
        return true
    }
}
