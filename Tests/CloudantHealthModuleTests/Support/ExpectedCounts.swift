import CloudantCore

/// A number of the generator's `expected.json`, `-1` when it is absent or not a whole number (so a missing
/// figure never matches a count).
func expectedInt(_ value: JSONValue?) -> Int { value?.numberValue?.int64Value.map(Int.init) ?? -1 }

/// An object of the generator's `expected.json` as counts by key (type identifier, activity type…).
func expectedCounts(_ value: JSONValue?) -> [String: Int] {
    (value?.objectValue?.members ?? []).reduce(into: [:]) { $0[$1.key] = expectedInt($1.value) }
}
