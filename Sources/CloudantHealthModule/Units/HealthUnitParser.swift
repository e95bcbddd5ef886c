internal import CloudantCore

/// Reads HealthKit unit strings into factors (see ``HealthUnit`` for the grammar).
struct HealthUnitParser {
    private let text: String
    private let characters: [Character]
    private var index = 0

    init(_ text: String) {
        self.text = text
        self.characters = Array(text)
    }

    mutating func parse() throws(CloudantError) -> [HealthUnit.Factor] {
        guard !characters.isEmpty else { throw failure("An empty unit string is not a unit; write `count` for a scalar.") }
        var factors = try product(sign: 1)
        if peek == "/" {
            index += 1
            if peek == "(" {
                index += 1
                factors += try product(sign: -1)
                guard peek == ")" else { throw failure("A '(' in the denominator needs its ')'.") }
                index += 1
            } else {
                factors += try product(sign: -1)
            }
        }
        guard index == characters.count else {
            throw failure("Unexpected '\(characters[index])'; a unit has at most one '/'.")
        }
        // HealthKit writes `count/min` with a literal `count`; `1/min` is the same unit.
        return factors
    }

    private var peek: Character? { index < characters.count ? characters[index] : nil }

    private mutating func product(sign: Int) throws(CloudantError) -> [HealthUnit.Factor] {
        var factors = [try factor(sign: sign)]
        while let next = peek, next == "·" || next == "*" || next == "." {
            index += 1
            factors.append(try factor(sign: sign))
        }
        return factors
    }

    private mutating func factor(sign: Int) throws(CloudantError) -> HealthUnit.Factor {
        let start = index
        var name = ""
        while let next = peek, next.isLetter || next == "%" || next == "_" || next == "µ" {
            name.append(next)
            index += 1
        }
        guard !name.isEmpty else {
            if peek == "1", sign == 1 { index += 1; return HealthUnit.Factor(symbol: "count") }
            throw failure("Expected a unit symbol here.", at: start)
        }
        guard let (prefix, symbol) = Self.split(name) else {
            throw failure("'\(name)' is not a HealthKit unit symbol.", at: start)
        }
        var molarMass: String?
        if peek == "<" {
            index += 1
            var digits = ""
            while let next = peek, next != ">" { digits.append(next); index += 1 }
            guard peek == ">" else { throw failure("A molar mass '<…>' needs its '>'.") }
            index += 1
            guard symbol == "mol" else { throw failure("Only moles take a molar mass in '<…>'.", at: start) }
            guard let mass = Double(digits), mass > 0, mass.isFinite else {
                throw failure("The molar mass '<\(digits)>' must be a positive number of g/mol.", at: start)
            }
            molarMass = digits
        }
        let power = try exponent()
        return HealthUnit.Factor(prefix: prefix, symbol: symbol, molarMass: molarMass, exponent: power * sign)
    }

    private mutating func exponent() throws(CloudantError) -> Int {
        if peek == "^" {
            index += 1
            var digits = ""
            if peek == "-" { digits.append("-"); index += 1 }
            while let next = peek, next.isASCII, next.isNumber { digits.append(next); index += 1 }
            guard let power = Int(digits), power != 0 else { throw failure("'^' must be followed by a non-zero integer.") }
            return power
        }
        switch peek {
        case "²": index += 1; return 2
        case "³": index += 1; return 3
        default: return 1
        }
    }

    /// Splits `mg` into (`m`, `g`); whole symbols (`min`, `mi`, `mmHg`, `cd`) win over prefixed readings.
    static func split(_ name: String) -> (prefix: String, symbol: String)? {
        if UnitSymbol.table[name] != nil { return ("", name) }
        for (prefix, _) in UnitSymbol.prefixes where name.hasPrefix(prefix) {
            let rest = String(name.dropFirst(prefix.count))
            if let symbol = UnitSymbol.table[rest], symbol.takesPrefixes { return (prefix, rest) }
        }
        return nil
    }

    private func failure(_ message: String, at position: Int? = nil) -> CloudantError {
        CloudantError(
            .invalidUnit, "Cannot read the unit: \(message)",
            context: .init(field: text, position: position ?? index))
    }
}
