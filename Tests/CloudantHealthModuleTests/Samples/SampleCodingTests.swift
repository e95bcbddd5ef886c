import CloudantCore
import CloudantHealthModule
import Foundation
import Testing

@Suite("A sample's JSON is one flat object")
struct SampleCodingTests {
    private let start = TestDates.june1

    @Test func theCommonFieldsAndTheFamilysOwnMembersSitSideBySide() throws {
        let pulse = QuantitySample(
            uuid: "PULSE-1", typeIdentifier: "HKQuantityTypeIdentifierHeartRate", value: 71, unit: "count/min",
            startDate: start, endDate: start)
        let object = try JSONDecoder().decode([String: JSONValue].self, from: try JSONEncoder().encode(pulse))
        let keys: Set = ["id", "uuid", "typeIdentifier", "startDate", "endDate", "metadata", "value", "unit"]
        #expect(Set(object.keys) == keys)
        #expect(object["value"] == 71)
        #expect(try JSONDecoder().decode(QuantitySample.self, from: try JSONEncoder().encode(pulse)) == pulse)
    }

    @Test func aWorkoutsDurationIsItsActiveDurationNotItsInterval() throws {
        var run = WorkoutSample(
            uuid: "W1", activityType: "HKWorkoutActivityTypeRunning", startDate: start, endDate: start + 3600,
            duration: 1800)
        #expect(run.duration == 1800)
        run.duration = 1700
        #expect(run.values.duration == 1700)
        #expect(run.endDate.timeIntervalSince(run.startDate) == 3600)
    }

    @Test func missingOrNullListsReadAsEmptyAndAWorkoutWithoutItsTypeIdentifierStillReads() throws {
        let json = #"""
            {"id": "W2", "uuid": "W2", "startDate": 0, "endDate": 60, "activityType": "HKWorkoutActivityTypeYoga",
             "duration": 60, "events": null}
            """#
        let workout = try JSONDecoder().decode(WorkoutSample.self, from: Data(json.utf8))
        #expect(workout.typeIdentifier == WorkoutSample.workoutTypeIdentifier)
        #expect(workout.events.isEmpty && workout.routeIDs.isEmpty && workout.metadata.isEmpty)
        let encoded = try JSONDecoder().decode([String: JSONValue].self, from: try JSONEncoder().encode(workout))
        #expect(encoded["events"] == [] && encoded["routeIDs"] == [])
    }

    @Test func aQuantityWithoutItsTypeIdentifierIsRefused() {
        let json = #"{"id": "Q", "uuid": "Q", "startDate": 0, "endDate": 0, "value": 1, "unit": "count"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(QuantitySample.self, from: Data(json.utf8)) }
    }
}
