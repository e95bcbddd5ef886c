internal import CloudantCore

/// The selector's top-level conditions checked on a candidate's stored JSON before the body is parsed, so
/// a scan parses only the documents that can match (as CouchDB's Mango filters each document it reads).
///
/// Each condition is judged by the matcher itself on the one value it reads: ``JSONMemberScan`` finds the
/// value along the field's path without building the rest of the body, and only that slice is parsed. A
/// condition's outcome depends on that value alone (or on its absence, or on the path passing through
/// something other than an object, which fails every condition), so a body refused here is one the whole
/// selector refuses; a body kept is still matched in full. Text the scan finds malformed is kept.
///
/// A `$eq` with a string of printable ASCII is compared with the stored string's bytes without parsing it:
/// two such strings are equal at every collation level exactly when their bytes are.
///
/// Unlike conditions in SQL, this reads a compressed body once for the check and the parse (the statement's
/// ``BodyReader`` keeps the last frame), and copies nothing into SQLite.
struct BodyPrefilter {
    private struct Check {
        /// The field's member names as UTF-8, outermost first.
        var names: [[UInt8]]
        /// The condition alone, as a selector on the field.
        var selector: MangoSelector
        /// Whether the condition holds where the field is absent (only `$exists: false` does).
        var holdsWhenAbsent: Bool
        /// For a `$eq` on a string of printable ASCII other than `\`: its bytes.
        var printableString: [UInt8]?
    }

    private let checks: [Check]

    /// Whether no condition is checked before parsing.
    var isEmpty: Bool { checks.isEmpty }

    /// - Parameter checked: The ends of each field's range the index scan checks on its key column: conditions
    ///   those ends imply are left out (they would refuse nothing the scan yields).
    init(selector: MangoSelector, checked: [FieldPath: IndexCheckedBounds] = [:]) {
        checks = QueryPlannerConjuncts.of(selector.root).compactMap { path, condition -> Check? in
            if let bounds = checked[path], bounds.imply(condition) { return nil }
            // `_` members are not in the stored body; a numeric segment may be an array position.
            guard let first = path.segments.first, !first.hasPrefix("_"),
                path.segments.allSatisfy({ !$0.isEmpty && !$0.utf8.allSatisfy { (0x30...0x39).contains($0) } })
            else { return nil }
            var printable: [UInt8]?
            if case .eq(.string(let text)) = condition, text.utf8.allSatisfy(Self.isPlainPrintable) { printable = Array(text.utf8) }
            let alone = MangoSelector(root: .field(path, condition))
            return Check(
                names: path.segments.map { Array($0.utf8) }, selector: alone, holdsWhenAbsent: alone.matches(JSONObject()),
                printableString: printable)
        }
    }

    /// Whether the body whose JSON is `json` can match: false only when one of the conditions refuses it.
    func mayMatch(_ json: UnsafeBufferPointer<UInt8>, limits: MatchLimits) throws -> Bool {
        for check in checks {
            switch Self.value(at: check.names, in: json) {
            case .unknown:
                continue
            case .throughOtherThanObject:
                return false
            case .absent:
                guard check.holdsWhenAbsent else { return false }
            case .found(let range):
                if let expected = check.printableString, let stored = Self.plainStringContents(json, range) {
                    guard stored.elementsEqual(expected) else { return false }
                    continue
                }
                guard let value = try? JSONValue(parsing: UnsafeBufferPointer(rebasing: json[range])) else { continue }
                let document = check.names.reversed().reduce(value) { inner, name in
                    .object(JSONObject(uniqueMembers: [(String(decoding: name, as: UTF8.self), inner)]))
                }
                guard case .object(let object) = document, try check.selector.matches(object, limits: limits) else { return false }
            }
        }
        return true
    }

    private enum Lookup {
        case found(Range<Int>)
        case absent
        /// The path passes through a value that is not an object: Mango's lookup fails, and every condition
        /// with it (a numeric segment, which could index an array, is never checked here).
        case throughOtherThanObject
        /// The text is not what the scan expects.
        case unknown
    }

    /// The value at the path of member names: each step must be an object, which holds the next name or not.
    private static func value(at names: [[UInt8]], in json: UnsafeBufferPointer<UInt8>) -> Lookup {
        var object = 0..<json.count
        for (step, name) in names.enumerated() {
            let slice = UnsafeBufferPointer(rebasing: json[object])
            guard let open = slice.firstIndex(where: { !isWhitespace($0) }) else { return .unknown }
            guard slice[open] == UInt8(ascii: "{") else { return step == 0 ? .unknown : .throughOtherThanObject }
            guard let member = name.withUnsafeBufferPointer({ JSONMemberScan.member($0, in: slice) }) else { return .unknown }
            guard let found = member else { return .absent }
            let range = (found.lowerBound + object.lowerBound)..<(found.upperBound + object.lowerBound)
            if step == names.count - 1 { return .found(range) }
            object = range
        }
        return .unknown
    }

    /// The bytes between the quotes of a string token holding only printable ASCII other than `\`; nil for
    /// any other value.
    private static func plainStringContents(_ json: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> UnsafeBufferPointer<UInt8>? {
        guard range.count >= 2, json[range.lowerBound] == UInt8(ascii: "\""), json[range.upperBound - 1] == UInt8(ascii: "\"")
        else { return nil }
        let contents = UnsafeBufferPointer(rebasing: json[(range.lowerBound + 1)..<(range.upperBound - 1)])
        return contents.allSatisfy(isPlainPrintable) ? contents : nil
    }

    /// Printable ASCII other than `\` (which starts an escape) and `"`: collation tells no two such strings
    /// apart that their bytes do not.
    private static func isPlainPrintable(_ byte: UInt8) -> Bool {
        (0x20...0x7E).contains(byte) && byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "\"")
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}

/// Which ends of a field's range an index scan checks on the field's key column (``QueryExecutor/columnConditions(_:columns:)``).
///
/// The column's range is the intersection of the top-level conditions on the field (``IndexRange``), and a
/// collation key orders as CouchDB's collation, which Mango's comparisons use: a row inside a checked end
/// passes every comparison of the field on that end. Leaving such a condition out of ``BodyPrefilter`` changes
/// no answer: rows are still matched in full.
struct IndexCheckedBounds: Sendable, Equatable {
    var lower = false
    var upper = false

    /// Whether every row the column's checked ends keep passes `condition`.
    func imply(_ condition: MangoSelector.Condition) -> Bool {
        switch condition {
        case .eq: lower && upper
        case .gt, .gte: lower
        case .lt, .lte: upper
        default: false
        }
    }
}
