import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation

/// Iterates a live query in the background and keeps every result, so a test can wait for the one it
/// expects and count them. The deadline is ``TestDeadline/generous``: the whole suite shares the machine.
final class LiveQueryRecorder: @unchecked Sendable {
    struct TimedOut: Error, CustomStringConvertible {
        var seen: [[String]]
        var description: String { "no matching result within the deadline; saw \(seen)" }
    }

    // `lock` protects `results`, `failure` and `ended`.
    private let lock = NSLock()
    private var results: [LiveQueryResult] = []
    private var failure: (any Error)?
    private var ended = false
    private var task: Task<Void, Never>?

    init(_ query: LiveQuery) {
        task = Task { [weak self] in
            do {
                for try await result in query { self?.lock.withLock { self?.results.append(result) } }
            } catch {
                self?.lock.withLock { self?.failure = error }
            }
            self?.lock.withLock { self?.ended = true }
        }
    }

    var all: [LiveQueryResult] { lock.withLock { results } }
    var hasEnded: Bool { lock.withLock { ended } }
    var error: (any Error)? { lock.withLock { failure } }

    /// The first result (counting from `index`) that `predicate` accepts.
    @discardableResult
    func wait(from index: Int = 0, until predicate: (LiveQueryResult) -> Bool) async throws -> LiveQueryResult {
        var found: LiveQueryResult?
        try? await waitUntil("a matching result", checkingEvery: .milliseconds(5)) {
            found = all.dropFirst(index).first(where: predicate)
            return found != nil
        }
        guard let found else { throw TimedOut(seen: all.map(\.ids)) }
        return found
    }

    /// Waits until the live query's sequence ends.
    func waitForEnd() async throws {
        try? await waitUntil("the live query's end", checkingEvery: .milliseconds(5)) { hasEnded }
        if !hasEnded { throw TimedOut(seen: all.map(\.ids)) }
    }

    func cancel() { task?.cancel() }
}

extension LiveQueryResult {
    /// The documents' ids, in order.
    var ids: [String] { docs.compactMap { $0["_id"]?.stringValue } }
}
