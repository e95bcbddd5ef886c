@testable import CloudantCore
import Testing

/// The table that writes ASCII strings' keys must write exactly ICU's bytes: stored index entries made by
/// either path are compared with each other.
@Suite("ASCII sort keys (ICU's bytes without ICU)")
struct ASCIISortKeyTests {
    static func icuKey(_ string: String) -> [UInt8] {
        var key: [UInt8] = []
        ICUCollator.appendSortKey(of: string, to: &key)
        return key
    }

    static func tableKey(_ string: String) throws -> [UInt8] {
        var key: [UInt8] = []
        try #require(ASCIISortKey.shared).append(string.utf8, to: &key)
        return key
    }

    @Test func theTableIsReadFromThisICU() {
        #expect(ASCIISortKey.shared != nil, "ICU's keys for ASCII changed shape: every ASCII key now goes to ICU")
    }

    @Test func everyCharacterAndEveryPairOfCharactersGetsICUsBytes() throws {
        let characters = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }
        for first in characters {
            #expect(try Self.tableKey(first) == Self.icuKey(first), "\(first.debugDescription)")
            for second in characters {
                let pair = first + second
                #expect(try Self.tableKey(pair) == Self.icuKey(pair), "\(pair.debugDescription)")
            }
        }
    }

    /// Runs of lower and upper case across the lengths where ICU's compressed levels start a new byte
    /// (33 common secondary weights, 97 tertiary ones), with ignorable and control characters among them.
    @Test func longRandomStringsGetICUsBytes() throws {
        let pieces = ["a", "A", "W", "z", "0", " ", "-", "\t", "\u{1}", "\u{7F}", "~", "$"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var string = ""
            for _ in 0..<Int.random(in: 0...5, using: &generator) {
                let count = [1, 2, 32, 33, 34, 65, 66, 67, 96, 97, 98, 194, 195, 300].randomElement(using: &generator)!
                string += String(repeating: pieces.randomElement(using: &generator)!, count: count)
            }
            #expect(try Self.tableKey(string) == Self.icuKey(string), "\(string.debugDescription)")
        }
    }

    @Test func collationKeysOfASCIIStringsAreICUsSortKeys() {
        for string in ["HKQuantityTypeIdentifierStepCount", "2026-11-10T10:00:00.000Z", "", "\u{1}", "A-b_c.D"] {
            #expect(CollationKey.of(.string(string)) == [CollationKey.TypeByte.string] + Self.icuKey(string))
        }
    }

    /// `$eq` decides ASCII strings without ICU; where it answers, it answers as ICU does.
    @Test func equalityWithoutICUAgreesWithICU() throws {
        let table = try #require(ASCIISortKey.shared)
        let alphabet = ["a", "A", "w", "W", "0", " ", "_", "-", "\t", "\u{1}", "\u{7F}", "é", "e\u{301}"]
        var generator = SystemRandomNumberGenerator()
        let strings = (0..<300).map { _ in
            (0..<Int.random(in: 0...3, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
        }
        var decided = 0
        for a in strings {
            for b in strings {
                guard let equal = table.equality(a, b) else { continue }
                decided += 1
                #expect(equal == (ICUCollator.compare(a, b) == 0), "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
        #expect(decided > strings.count * strings.count / 4)
    }

    /// Range conditions order ASCII strings without ICU; where the table answers, it answers as ICU does.
    @Test func orderWithoutICUAgreesWithICU() throws {
        let table = try #require(ASCIISortKey.shared)
        let characters = (0..<128).map { String(Unicode.Scalar(UInt8($0))) }
        for a in characters {
            for b in characters {
                for (x, y) in [(a, b), (a + "a", b), ("A" + a, "a" + b), (a + b, b + a)] {
                    if let order = table.order(x, y) {
                        #expect(order == ICUCollator.compare(x, y), "\(x.debugDescription) vs \(y.debugDescription)")
                    }
                }
            }
        }
        let pieces = ["a", "A", "w", "W", "z", "0", "9", " ", "_", "-", ":", ".", "T", "\t", "\u{1}", "~", "$", "é"]
        var generator = SystemRandomNumberGenerator()
        let strings = (0..<400).map { _ in
            (0..<Int.random(in: 0...6, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        } + ["2024-03-30T23:55:00.000Z", "2024-03-31T00:00:00.000Z", "2024-03-30T23:55:00Z"]
        var decided = 0
        for a in strings {
            for b in strings {
                guard let order = table.order(a, b) else { continue }
                decided += 1
                #expect(order == ICUCollator.compare(a, b), "\(a.debugDescription) vs \(b.debugDescription)")
            }
        }
        #expect(decided > strings.count * strings.count / 4)
    }
}
