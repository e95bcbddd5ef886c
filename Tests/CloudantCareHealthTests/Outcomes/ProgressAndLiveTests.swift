import CloudantCareHealth
import Dispatch
import Foundation
import Testing

@Suite("Daily progress, live events and callbacks")
struct ProgressAndLiveTests {
    @Test func dailyProgressCountsEventsWhoseSumReachesTheTarget() async throws {
        let fixture = try BridgeFixture(zone: "Europe/Paris")
        _ = try await fixture.care.add([
            fixture.dailyTask(start: try fixture.date(2024, 7, 1), linkage: BridgeFixture.stepLinkage(), target: 1000)
        ])
        _ = try await fixture.documents.add([
            fixture.sample("a", value: 700, start: try fixture.date(2024, 7, 2, 9)),
            fixture.sample("b", value: 300, start: try fixture.date(2024, 7, 2, 17)),
            fixture.sample("c", value: 999, start: try fixture.date(2024, 7, 3, 9)),
        ])
        let reached = try await fixture.careHealth.dailyProgress(taskID: "steps", on: try fixture.date(2024, 7, 2, 12))
        #expect(reached.eventCount == 1 && reached.completedCount == 1 && reached.fraction == 1)
        #expect(reached.day == (try fixture.days(from: try fixture.date(2024, 7, 2), count: 1)))
        let short = try await fixture.careHealth.dailyProgress(taskID: "steps", on: try fixture.date(2024, 7, 3, 12))
        #expect(short.eventCount == 1 && short.completedCount == 0 && short.fraction == 0)
    }

    @Test func withoutATargetAnEventWithAnOutcomeIsDone() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 7, 1), linkage: BridgeFixture.stepLinkage())])
        _ = try await fixture.documents.add([fixture.sample("a", value: 1, start: try fixture.date(2024, 7, 2, 9))])
        #expect(try await fixture.careHealth.dailyProgress(taskID: "steps", on: try fixture.date(2024, 7, 2)).fraction == 1)
        #expect(try await fixture.careHealth.dailyProgress(taskID: "steps", on: try fixture.date(2024, 7, 4)).fraction == 0)
    }

    @Test func liveEventsEmitAgainWhenASampleArrivesAndWhenOneIsDeleted() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 8, 1), linkage: BridgeFixture.stepLinkage())])
        let day = try fixture.days(from: try fixture.date(2024, 8, 2), count: 1)
        var updates = fixture.careHealth.liveEvents(taskID: "steps", in: day).makeAsyncIterator()
        #expect(try await updates.next()?.map(\.outcome) == [nil])

        let stored = try await fixture.documents.add([fixture.sample("a", value: 250, start: try fixture.date(2024, 8, 2, 9))])
        #expect(try await updates.next()?.map { $0.outcome?.total } == [250])

        // A write that changes nothing of the outcome emits nothing: the next element is the deletion's.
        _ = try await fixture.documents.add([fixture.sample("elsewhere", value: 5, start: try fixture.date(2024, 9, 1))])
        _ = try await fixture.documents.delete(stored)
        #expect(try await updates.next()?.map(\.outcome) == [nil])
    }

    @Test func theCallbackAdapterDeliversTheAsyncResultOnTheGivenQueue() async throws {
        let fixture = try BridgeFixture(zone: "UTC")
        _ = try await fixture.care.add([fixture.dailyTask(start: try fixture.date(2024, 8, 1), linkage: BridgeFixture.stepLinkage())])
        _ = try await fixture.documents.add([fixture.sample("a", value: 42, start: try fixture.date(2024, 8, 2, 9))])
        let day = try fixture.days(from: try fixture.date(2024, 8, 2), count: 1)
        let queue = DispatchQueue(label: "bridge-callbacks")
        let totals: [Double] = try await withCheckedThrowingContinuation { continuation in
            fixture.careHealth.fetchOutcomes(for: "steps", in: day, callbackQueue: queue) { result in
                dispatchPrecondition(condition: .onQueue(queue))
                continuation.resume(with: result.map { $0.map(\.total) })
            }
        }
        #expect(totals == [42])
        _ = try await fixture.documents.add([fixture.sample("bad", value: 3, unit: "kg", start: try fixture.date(2024, 8, 5, 9))])
        let failure: CloudantError? = await withCheckedContinuation { continuation in
            let badDay = DateInterval(start: day.start.addingTimeInterval(3 * 86_400), duration: 86_400)
            fixture.careHealth.fetchEvents(taskID: "steps", in: badDay, callbackQueue: queue) { result in
                if case .failure(let error) = result { continuation.resume(returning: error) } else { continuation.resume(returning: nil) }
            }
        }
        #expect(failure?.code == .incompatibleUnits)
        #expect(failure?.context.documentID == "bad")
    }
}
