@testable import CloudantBase
import Foundation
import Testing

@Suite("Decimal numbers read from text exactly as Double(String) reads them")
struct DecimalTextTests {
    /// Bit patterns, so that -0.0 and 0.0 differ and nan equals nan.
    private func same(_ text: String) -> Bool {
        DecimalText.double(text)?.bitPattern == Double(text)?.bitPattern
    }

    @Test("Coordinates, accuracies and quantities as Apple writes them give strtod's double, bit for bit")
    func exportNumbersGiveStrtodsDouble() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let value = Double.random(in: -180...180, using: &generator)
            let digits = Int.random(in: 0...15, using: &generator)
            let text = String(format: "%.\(digits)f", value)
            #expect(same(text), "\(text)")
            if digits <= 12 {  // 15 significant digits at most: under 2^53, so read without strtod
                let plain = Array(text.utf8).withUnsafeBufferPointer { DecimalText.plainDouble(utf8: $0) }
                #expect(plain?.bitPattern == Double(text)?.bitPattern, "\(text)")
            }
        }
        // Shortest round-trip spellings, as JSON and Swift write doubles.
        for _ in 0..<20_000 {
            let value = Double(bitPattern: UInt64.random(in: 0...UInt64.max, using: &generator))
            #expect(same("\(value)"), "\(value)")
            let small = Double.random(in: -1e6...1e6, using: &generator)
            #expect(same("\(small)"), "\(small)")
        }
    }

    @Test("Edge spellings: signs, zeros, exponents, 19 and 20 digits, 2^53 and beyond")
    func edgeSpellingsGiveStrtodsDouble() {
        let texts = [
            "0", "-0", "+0", "0.0", "-0.0", "00012", "1.5", "-1.5", "+1.5", "1e0", "1E5", "1e+5", "1e-5", "-2.5e-3",
            "1e22", "1e23", "1e-22", "1e-23", "123456789e-30", "9007199254740992", "9007199254740993",
            "9007199254740991.5", "1234567890123456789", "12345678901234567890", "0.0000000000000000000001",
            "0.1", "0.2", "0.3", "2.2250738585072014e-308", "1.7976931348623157e308", "4.9e-324", "1e400", "1e-400",
            "1e1000000000000", "0e99999", "1.", ".5", "-.5", "1e", "1e+", "e5", "", "-", "+", " 1", "1 ", "1,5",
            "0x1p3", "inf", "-inf", "nan", "NaN", "Infinity", "1_000", "١", "1.5.5", "--1", "1e5e5",
        ]
        for text in texts { #expect(same(text), "\(text)") }
    }

    @Test("Random digit strings of every length and exponent agree with strtod")
    func randomDigitStringsAgree() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let integer = String((0..<Int.random(in: 1...22, using: &generator)).map { _ in
                Character(String(Int.random(in: 0...9, using: &generator)))
            })
            let fraction = String((0..<Int.random(in: 0...22, using: &generator)).map { _ in
                Character(String(Int.random(in: 0...9, using: &generator)))
            })
            var text = Bool.random(using: &generator) ? "-" + integer : integer
            if !fraction.isEmpty { text += "." + fraction }
            if Bool.random(using: &generator) { text += "e\(Int.random(in: -30...30, using: &generator))" }
            #expect(same(text), "\(text)")
        }
    }
}
