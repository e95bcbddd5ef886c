internal import Foundation

/// Turns an `<ActivitySummary>` into an activity summary sample:
/// `<ActivitySummary dateComponents="2024-03-05" activeEnergyBurned="512.3" activeEnergyBurnedGoal="600"
/// activeEnergyBurnedUnit="Cal" appleMoveTime="0" appleMoveTimeGoal="0" appleExerciseTime="37"
/// appleExerciseTimeGoal="30" appleStandHours="11" appleStandHoursGoal="12"/>`.
///
/// Every value attribute is optional (older exports lack the move-time and goal ones); one that is present
/// but not a finite number skips the element, as a record's value does.
enum ExportActivitySummaryDecoder {
    static func summary(_ element: XMLElementView) throws(ImportSkip) -> ActivitySummarySample {
        let attributes = ExportAttributes(element: element)
        guard let text = attributes.string("dateComponents") else {
            throw ImportSkip("an <ActivitySummary> without dateComponents")
        }
        guard let day = CalendarDay(parsing: text) else { throw ImportSkip("unreadable dateComponents '\(text)'") }
        // Apple writes the energy unit it displays: `Cal` (= kcal) or `kJ`; without one, HealthKit's kcal.
        let energyUnit: HealthUnit
        if let unitText = attributes.string("activeEnergyBurnedUnit") {
            guard let parsed = try? HealthUnit(parsing: unitText), parsed.isCompatible(with: .kilocalorie) else {
                throw ImportSkip("an unknown energy unit '\(unitText)'")
            }
            energyUnit = parsed
        } else {
            energyUnit = .kilocalorie
        }
        func quantity(_ name: String, _ unit: HealthUnit) throws(ImportSkip) -> HealthQuantity? {
            guard let text = attributes.string(name) else { return nil }
            guard let value = Double(text), value.isFinite else { throw ImportSkip("a non-numeric \(name) '\(text)'") }
            return HealthQuantity(value: value, unit: unit)
        }
        return ActivitySummarySample(
            day: day, activeEnergyBurned: try quantity("activeEnergyBurned", energyUnit),
            activeEnergyBurnedGoal: try quantity("activeEnergyBurnedGoal", energyUnit),
            appleMoveTime: try quantity("appleMoveTime", .minute),
            appleMoveTimeGoal: try quantity("appleMoveTimeGoal", .minute),
            appleExerciseTime: try quantity("appleExerciseTime", .minute),
            appleExerciseTimeGoal: try quantity("appleExerciseTimeGoal", .minute),
            appleStandHours: try quantity("appleStandHours", .count),
            appleStandHoursGoal: try quantity("appleStandHoursGoal", .count))
    }
}
