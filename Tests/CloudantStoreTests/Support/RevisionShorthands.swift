import CloudantCore

extension JSONObject {
    /// The `_rev` member as a string, for brevity in tests.
    var rev: String? { self["_rev"]?.stringValue }
}

/// A revision string with a given generation and a 32-hex hash made from `seed`.
func rev(_ generation: Int, _ seed: Character) -> String {
    "\(generation)-" + String(repeating: seed, count: 32)
}
