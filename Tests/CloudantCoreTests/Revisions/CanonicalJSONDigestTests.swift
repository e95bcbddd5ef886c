@testable import CloudantCore
import Testing

@Suite("Canonical JSON digest")
struct CanonicalJSONDigestTests {
    @Test func digestsOfKnownBodiesNeverChange() {
        // md5 of {"attachments":[],"body":{},"deleted":false,"parent":null}: ids derived from it are stored.
        #expect(CanonicalJSONDigest.of(body: JSONObject()) == "dd4d5f9f9321afd5eca79c2ec847278f")
        #expect(
            CanonicalJSONDigest.of(body: ["b": 1, "a": 2.0, "_id": "x"]) == CanonicalJSONDigest.of(body: ["a": 2, "b": 1]))
    }
}
