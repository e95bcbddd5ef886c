@testable import CloudantBase
import Foundation
import Testing

@Suite("UUIDs read from text exactly as Foundation reads them")
struct UUIDTextTests {
    @Test("Canonical text in upper, lower or mixed case gives Foundation's UUID")
    func canonicalTextGivesFoundationsUUID() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let uuid = UUID()
            let upper = uuid.uuidString
            let mixed = String(upper.map { Bool.random(using: &generator) ? Character($0.lowercased()) : $0 })
            for text in [upper, upper.lowercased(), mixed] {
                #expect(UUIDText.canonical(text) == uuid, "\(text)")
                #expect(UUIDText.uuid(text) == uuid, "\(text)")
            }
        }
    }

    @Test("Any other text is read or refused exactly as UUID(uuidString:) does")
    func otherTextIsFoundations() {
        var generator = SystemRandomNumberGenerator()
        let replacements: [String] = ["g", "G", "-", " ", "+", "x", "0x", "", "é", "\u{0}", "{", "00"]
        for _ in 0..<2_000 {
            var characters = Array(UUID().uuidString)
            let position = Int.random(in: 0..<characters.count, using: &generator)
            let replacement = replacements.randomElement(using: &generator)!
            characters.replaceSubrange(position...position, with: Array(replacement))
            let text = String(characters)
            #expect(UUIDText.uuid(text) == UUID(uuidString: text), "\(text.debugDescription)")
            // Where the direct reading answers, Foundation agrees.
            if let direct = UUIDText.canonical(text) { #expect(UUID(uuidString: text) == direct, "\(text.debugDescription)") }
        }
        for text in ["", "E621E1F8C36C495A93FC0C247A3E6E5F", " E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                     "E621E1F8-C36C-495A-93FC-0C247A3E6E5F ", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F\u{0}",
                     "+621E1F8-C36C-495A-93FC-0C247A3E6E5F", "E621E1F8-+36C-495A-93FC-0C247A3E6E5F"] {
            #expect(UUIDText.uuid(text) == UUID(uuidString: text), "\(text.debugDescription)")
            #expect(UUIDText.canonical(text) == nil, "\(text.debugDescription)")
        }
    }
}
