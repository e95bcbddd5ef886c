import CloudantCareModule
import CloudantCore
import CloudantStore
import CloudantTestSupport
import Foundation
import Testing

/// Live events with outcomes: recomputed after each commit that changes them, quiet otherwise.
@Suite("Care live events")
struct CareLiveEventsTests {
    /// Collects each list the live events yield (outcome uuids per event, nil for none).
    final class Recorder: @unchecked Sendable {
        // `lock` protects `lists`.
        private let lock = NSLock()
        private var lists: [[UUID?]] = []
        private var task: Task<Void, Never>?

        init(_ events: AsyncThrowingStream<[TaskEvent<CareTask>], any Error>) {
            task = Task { [weak self] in
                do {
                    for try await list in events { self?.lock.withLock { self?.lists.append(list.map { $0.outcome?.uuid }) } }
                } catch {
                    Issue.record(error)
                }
            }
        }

        var all: [[UUID?]] { lock.withLock { lists } }

        func wait(for expected: [UUID?]) async throws {
            do {
                try await waitUntil("\(expected)", checkingEvery: .milliseconds(5)) { all.last == expected }
            } catch is DeadlineExceeded {
                Issue.record("never saw \(expected); saw \(all)")
            }
        }

        func cancel() { task?.cancel() }
    }

    @Test func eventsAreYieldedNowAndAgainWhenAnOutcomeOrANewVersionChangesThem() async throws {
        let fixture = try CareFixture()
        let utc = fixture.utc
        let task = try fixture.dailyTask(id: "meds", uuid: 1, start: utc.date(2024, 1, 1, 8))
        try await fixture.care.add([task])
        let live = Recorder(fixture.care.observeEvents(forTask: "meds", from: try utc.date(2024, 1, 1), to: try utc.date(2024, 1, 4)))
        defer { live.cancel() }
        try await live.wait(for: [nil, nil, nil])

        let recorded = try await fixture.care.add([try fixture.outcome(task: task.uuid, occurrence: 1, uuid: 5)])
        try await live.wait(for: [nil, testUUID(5), nil])
        // Another task's new version changes nothing here: no new list.
        try await fixture.care.add([try fixture.dailyTask(id: "walk", uuid: 2, start: utc.date(2024, 1, 1, 9))])
        _ = try await fixture.care.delete(recorded)
        try await live.wait(for: [nil, nil, nil])
        #expect(live.all == [[nil, nil, nil], [nil, testUUID(5), nil], [nil, nil, nil]])

        // A new version from Jan 3 replaces the last event.
        var later = task
        later.schedule = try Schedule.dailyAtTime(
            hour: 20, minutes: 0, start: utc.date(2024, 1, 3), end: nil, text: nil, calendar: utc.calendar)
        later.effectiveDate = try utc.date(2024, 1, 3)
        let v2 = try await fixture.care.update([later])[0]
        try await fixture.care.add([try fixture.outcome(task: v2.uuid, occurrence: 0, uuid: 7)])
        try await live.wait(for: [nil, nil, testUUID(7)])
    }
}
