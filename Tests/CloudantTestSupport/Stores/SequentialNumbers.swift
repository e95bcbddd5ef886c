public import Foundation
import Synchronization

/// 1, 2, 3…, safely from any thread: deterministic document ids, uuids and revision seeds for the stores a test
/// makes.
///
/// ```swift
/// let ids = SequentialNumbers()
/// options.makeDocumentID = { String(format: "generated-%04d", ids.next()) }
/// ```
public final class SequentialNumbers: Sendable {
    private let last: Mutex<Int>

    /// Numbers that start after `start` (the first ``next()`` is `start + 1`).
    public init(after start: Int = 0) { last = Mutex(start) }

    /// The next number.
    public func next() -> Int {
        last.withLock { value in
            value += 1
            return value
        }
    }

    /// The next number as a UUID (``Foundation/UUID/numbered(_:)``).
    public func nextUUID() -> UUID { UUID.numbered(next()) }
}

extension UUID {
    /// The version-4-shaped UUID `00000000-0000-4000-8000-` followed by `number` in twelve hexadecimal digits:
    /// readable in a failure, and sorting as the numbers do.
    public static func numbered(_ number: Int) -> UUID {
        let hex = String(number, radix: 16)
        let padded = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        return UUID(uuidString: "00000000-0000-4000-8000-\(padded)") ?? UUID()
    }
}
