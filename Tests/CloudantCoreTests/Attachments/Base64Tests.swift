import CloudantCore
import Foundation
import Testing

@Suite("Base64")
struct Base64Tests {
    @Test("Encoding agrees with Foundation's for every length from 0 to 300 and random bytes, and decodes back")
    func encodingAgreesWithFoundationAndRoundTrips() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...300 {
            for _ in 0..<4 {
                let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
                let encoded = Base64.encode(bytes)
                #expect(encoded == Data(bytes).base64EncodedString(), "length \(length)")
                #expect(Base64.decode(encoded) == bytes, "length \(length)")
            }
        }
    }

    @Test("RFC 4648's test vectors, from a contiguous array and from a lazy sequence")
    func rfc4648Vectors() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (text, expected) in vectors {
            #expect(Base64.encode(Array(text.utf8)) == expected)
            #expect(Base64.encode(text.utf8.lazy.map { $0 }) == expected)
        }
    }
}

@Suite("Base64 decoding")
struct Base64DecodingTests {
    /// Mutations of valid encodings: a character replaced, inserted or dropped, padding moved or added.
    private static func mutations(of encoded: [UInt8], using generator: inout some RandomNumberGenerator) -> [[UInt8]] {
        let pool = Array("AZaz09+/=-_ .\n\u{7F}".utf8) + [0x00, 0xC3, 0xA9]
        var variants: [[UInt8]] = []
        for _ in 0..<6 {
            var variant = encoded
            let position = Int.random(in: 0...variant.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0 where position < variant.count: variant[position] = pool.randomElement(using: &generator)!
            case 1: variant.insert(pool.randomElement(using: &generator)!, at: position)
            default: if position < variant.count { variant.remove(at: position) }
            }
            variants.append(variant)
        }
        return variants + [encoded + Array("==".utf8), encoded + Array("====".utf8), Array("=".utf8) + encoded]
    }

    @Test("What strict and lenient decoding accept, Data(base64Encoded:) decodes to the same bytes, on valid and mutated input")
    func strictDecodingNeverDisagreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        var refused = 0
        for length in 0...120 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let encoded = Array(Base64.encode(bytes).utf8)
            #expect(Base64.decode(strict: encoded) == bytes, "length \(length)")
            for variant in Self.mutations(of: encoded, using: &generator) {
                let foundation = Data(base64Encoded: Data(variant)).map { Array($0) }
                let text = String(decoding: variant, as: UTF8.self)
                if let strict = Base64.decode(strict: variant) {
                    #expect(strict == foundation, "\(text.debugDescription)")
                } else {
                    refused += 1
                }
                // The lenient form is the strict one once ASCII whitespace is gone, and agrees with Foundation
                // wherever it accepts.
                let compact = variant.filter { ![9, 10, 13, 32].contains($0) }
                let lenient = Base64.decode(text)
                #expect(lenient == Base64.decode(strict: compact), "\(text.debugDescription)")
                if let lenient { #expect(lenient == Data(base64Encoded: Data(compact)).map { Array($0) }, "\(text.debugDescription)") }
            }
        }
        #expect(refused > 200, "the mutations exercise refusals")
    }

    @Test("Strict decoding refuses what RFC 4648 does not allow and ignores unused final bits, as Foundation")
    func strictDecodingFollowsRFC4648() {
        let accepted = ["QQ==": [65], "QR==": [65], "QUI=": [65, 66], "QUJ=": [65, 66], "QUJD": [65, 66, 67], "": []]
        for (text, bytes) in accepted {
            #expect(Base64.decode(strict: Array(text.utf8)) == bytes.map(UInt8.init), "\(text)")
        }
        for text in ["QQ", "QQ=", "Q===", "====", "QQ=A", "QU=D", "=QUJ", "QUJD=", "QUJD==", "QQ==QQ==", "Zm9v\nYmFy", "Zm-_"] {
            #expect(Base64.decode(strict: Array(text.utf8)) == nil, "\(text.debugDescription)")
        }
    }

    @Test("The lenient decoding skips whitespace anywhere, as CouchDB accepts attachment data")
    func lenientDecodingSkipsWhitespace() {
        #expect(Base64.decode("Zm9v\nYmFy") == Array("foobar".utf8))
        #expect(Base64.decode(" Zm9v YmE= ") == Array("fooba".utf8))
        #expect(Base64.decode("Zm9v YmE") == nil)
        #expect(Base64.decode("Zm9v!mFy") == nil)
        // Whatever is not RFC 4648 once the whitespace is gone is refused, as CouchDB refuses it.
        #expect(Base64.decode("notBase64Encoded=") == nil)
        #expect(Base64.decode("QUJD=") == nil)
    }

    @Test("base64url is written unpadded and read padded or not, with its own alphabet only")
    func base64URLRoundTripsWithoutPadding() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x01]
        #expect(Base64.encodeURL(bytes) == "-_-_AQ")
        #expect(Base64.decodeURL("-_-_AQ") == bytes)
        #expect(Base64.decodeURL("-_-_AQ==") == bytes)
        for length in 0..<8 {
            let sample = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 73 &+ 11) }
            #expect(Base64.decodeURL(Base64.encodeURL(sample)) == sample)
        }
        #expect(Base64.decodeURL("@@@") == nil)
    }
}
