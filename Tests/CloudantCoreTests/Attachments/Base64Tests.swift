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
