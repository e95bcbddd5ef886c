import CloudantCare
import CloudantCareModule
import CloudantCore
import Dispatch
import Foundation
import Testing

/// The callback adapter: every completion runs once, on the queue given, with the async call's result or its
/// typed error.
@Suite("Care callbacks")
struct CareCallbackTests {
    /// A private queue that can tell whether code runs on it.
    private struct Queue {
        let queue = DispatchQueue(label: "care-callbacks")
        let key = DispatchSpecificKey<String>()

        init() { queue.setSpecific(key: key, value: "care-callbacks") }

        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == "care-callbacks" }
    }

    /// Calls `start` with a completion and waits for it, returning the result and whether it ran on `queue`.
    private func callback<Value: Sendable>(
        on queue: Queue, _ start: (@escaping @Sendable (Result<Value, CloudantError>) -> Void) -> Void
    ) async -> (result: Result<Value, CloudantError>, onQueue: Bool) {
        await withCheckedContinuation { continuation in
            start { result in continuation.resume(returning: (result, queue.isCurrent)) }
        }
    }

    @Test func writesAndFetchesDeliverTheirResultsOnTheGivenQueue() async throws {
        let fixture = try CareFixture()
        let queue = Queue()
        let plan = fixture.plan(id: "diabetes", uuid: 10)
        let added = await callback(on: queue) { fixture.care.add([plan], callbackQueue: queue.queue, completion: $0) }
        #expect(added.onQueue)
        #expect(try added.result.get().map(\.id) == ["diabetes"])

        var renamed = try added.result.get()[0]
        renamed.title = "Type 2 diabetes"
        let updated = await callback(on: queue) {
            fixture.care.updateCarePlans([renamed], callbackQueue: queue.queue, completion: $0)
        }
        #expect(updated.onQueue)
        #expect(try updated.result.get().map(\.title) == ["Type 2 diabetes"])

        let fetched = await callback(on: queue) {
            fixture.care.fetch(CarePlan.self, query: CareQuery(id: "diabetes"), callbackQueue: queue.queue, completion: $0)
        }
        #expect(fetched.onQueue)
        #expect(Set(try fetched.result.get().map(\.title)) == ["Diabetes", "Type 2 diabetes"])

        let inEffect = await callback(on: queue) {
            fixture.care.fetchInEffect(CarePlan.self, at: fixture.clock.now, callbackQueue: queue.queue, completion: $0)
        }
        #expect(try inEffect.result.get().map(\.title) == ["Type 2 diabetes"])

        let deleted = await callback(on: queue) {
            fixture.care.deleteCarePlans([renamed], callbackQueue: queue.queue, completion: $0)
        }
        #expect(deleted.onQueue)
        #expect(try deleted.result.get().first?.deletedDate != nil)
    }

    @Test func eventsAndOutcomesByEventDateArriveOnTheGivenQueue() async throws {
        let fixture = try CareFixture()
        let queue = Queue()
        let utc = fixture.utc
        let task = try fixture.dailyTask(id: "meds", uuid: 20, start: try utc.date(2024, 1, 1, 8))
        try await fixture.care.add([task])
        let outcome = try fixture.outcome(task: task.uuid, occurrence: 2, uuid: 30)
        let added = await callback(on: queue) { fixture.care.addOutcomes([outcome], callbackQueue: queue.queue, completion: $0) }
        #expect(added.onQueue)
        #expect(try added.result.get().map(\.uuid) == [outcome.uuid])

        let jan3 = CareQuery(for: try utc.date(2024, 1, 3), calendar: utc.calendar)
        let outcomes = await callback(on: queue) {
            fixture.care.fetchOutcomes(query: jan3, callbackQueue: queue.queue, completion: $0)
        }
        #expect(outcomes.onQueue)
        #expect(try outcomes.result.get().map(\.uuid) == [outcome.uuid])

        let (jan2, jan4) = (try utc.date(2024, 1, 2), try utc.date(2024, 1, 4))
        let events = await callback(on: queue) {
            fixture.care.events(forTask: "meds", from: jan2, to: jan4, callbackQueue: queue.queue, completion: $0)
        }
        #expect(events.onQueue)
        let delivered = try events.result.get()
        #expect(delivered.map(\.occurrence) == [1, 2])
        #expect(delivered.map { $0.outcome?.uuid } == [nil, outcome.uuid])
    }

    @Test func typedErrorsArriveOnTheGivenQueue() async throws {
        let fixture = try CareFixture()
        let queue = Queue()
        let plan = fixture.plan(id: "diabetes", uuid: 10)
        try await fixture.care.add([plan])
        let duplicate = await callback(on: queue) { fixture.care.addCarePlans([plan], callbackQueue: queue.queue, completion: $0) }
        #expect(duplicate.onQueue)
        #expect(duplicate.result.failure?.code == .duplicateVersion)

        let orphan = try fixture.outcome(task: testUUID(99), occurrence: 0, uuid: 31)
        let orphaned = await callback(on: queue) { fixture.care.add([orphan], callbackQueue: queue.queue, completion: $0) }
        #expect(orphaned.onQueue)
        #expect(orphaned.result.failure?.code == .orphanedOutcome)
        #expect(orphaned.result.failure?.context.itemIndex == 0)

        var byTask = CareQuery()
        byTask.taskIDs = ["meds"]
        let invalid = await callback(on: queue) {
            fixture.care.fetchCarePlans(query: byTask, callbackQueue: queue.queue, completion: $0)
        }
        #expect(invalid.onQueue)
        #expect(invalid.result.failure?.code == .invalidInput)
        #expect(invalid.result.failure?.context.field == "taskUUID")
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
