@testable import CloudantCore
import PropertyBased
import Testing

@Suite("View key encodings (collation and raw)")
struct ViewKeyEncodingTests {
    static func byteOrder(_ a: [UInt8], _ b: [UInt8]) -> Int { a == b ? 0 : (a.lexicographicallyPrecedes(b) ? -1 : 1) }

    @Test func rawKeysOrderAsErlangTerms() async {
        await propertyCheck(input: QueryGen.value, QueryGen.value) { a, b in
            #expect(Self.byteOrder(RawCollationKey.of(a), RawCollationKey.of(b)) == Collation.rawCompare(a, b), "\(a.jsonString()) vs \(b.jsonString())")
        }
    }

    @Test(arguments: [ViewKeyEncoding.collation, .raw])
    func skippingAValueLandsExactlyAtItsEnd(encoding: ViewKeyEncoding) async {
        await propertyCheck(input: QueryGen.value, QueryGen.value) { a, b in
            let first = encoding.key(a)
            let both = first + encoding.key(b)
            #expect(encoding.skipValue(both, at: 0) == first.count, "\(a.jsonString())")
        }
    }

    @Test(arguments: [ViewKeyEncoding.collation, .raw])
    func groupPrefixesAreEqualExactlyWhenTheLeadingElementsCollateEqual(encoding: ViewKeyEncoding) async {
        await propertyCheck(input: QueryGen.value, QueryGen.value, QueryGen.value) { a, b, c in
            let left: JSONValue = [a, b, 1]
            let right: JSONValue = [a, c, 2]
            let keyLeft = encoding.key(left)
            let keyRight = encoding.key(right)
            let one = (encoding.groupPrefixLength(of: keyLeft, level: 1), encoding.groupPrefixLength(of: keyRight, level: 1))
            #expect(keyLeft.prefix(one.0) == keyRight.prefix(one.1))
            let two = (encoding.groupPrefixLength(of: keyLeft, level: 2), encoding.groupPrefixLength(of: keyRight, level: 2))
            let same = encoding == .raw ? Collation.rawCompare(b, c) == 0 : Collation.compare(b, c) == 0
            #expect((keyLeft.prefix(two.0) == keyRight.prefix(two.1)) == same, "\(b.jsonString()) vs \(c.jsonString())")
        }
    }

    @Test func aKeyThatIsNoArrayGroupsByItself() {
        let key = CollationKey.of("text")
        #expect(ViewKeyEncoding.collation.groupPrefixLength(of: key, level: 2) == key.count)
        let short = CollationKey.of(["a"])
        // Fewer elements than the level: its elements without the array's end.
        #expect(ViewKeyEncoding.collation.groupPrefixLength(of: short, level: 2) == short.count - 1)
    }
}
