/// An immutable value held by reference, so that copies of the structs carrying it cost one retain instead of a
/// copy of every field.
///
/// A year of events repeats the same task version (and schedule element) hundreds of times; held inline, each
/// event copied the whole task while the events were collected and sorted. Equality and hashing are the value's.
final class SharedValue<Value: Hashable & Sendable>: Hashable, Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }

    static func == (lhs: SharedValue, rhs: SharedValue) -> Bool {
        lhs === rhs || lhs.value == rhs.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }
}
