import CloudantCareModule
import CloudantCore
import Foundation
import Testing

@Suite("Schedule factories and helpers")
struct ScheduleFactoryTests {
    @Test func dailyAtTimeSetsTheTimeOnTheStartDayAndStepsByOneDay() throws {
        let newYork = try Zone.newYork()
        let schedule = try Schedule.dailyAtTime(
            hour: 20, minutes: 15, start: newYork.date(2024, 5, 4, 9), end: nil, text: "evening",
            calendar: newYork.calendar)
        let element = try #require(schedule.elements.first)
        #expect(newYork.wallClock(element.start) == WallClock(year: 2024, month: 5, day: 4, hour: 20, minute: 15))
        #expect(element.interval == ScheduleInterval(days: 1))
        #expect(element.duration == .hours(1))
        #expect(element.text == "evening")
    }

    @Test func weeklyAtTimeStartsOnTheNamedWeekdayOnOrAfterTheStart() throws {
        let utc = try Zone.utc()
        // 2024-01-03 is a Wednesday; weekday 2 is Monday.
        let schedule = try Schedule.weeklyAtTime(
            weekday: 2, hours: 9, minutes: 30, start: utc.date(2024, 1, 3), end: nil, targetValues: [], text: nil,
            calendar: utc.calendar)
        let element = try #require(schedule.elements.first)
        #expect(utc.wallClock(element.start) == WallClock(year: 2024, month: 1, day: 8, hour: 9, minute: 30))
        #expect(element.interval == ScheduleInterval(weeks: 1))
        let events = try schedule.events(from: utc.date(2024, 1, 1), to: utc.date(2024, 2, 1), in: utc.timeZone)
        #expect(events.map { utc.wallClock($0.start).day } == [8, 15, 22, 29])
    }

    @Test func factoriesRejectTimesAndWeekdaysThatDoNotExist() throws {
        let utc = try Zone.utc()
        let badWeekday = #expect(throws: CloudantError.self) {
            try Schedule.weeklyAtTime(
                weekday: 8, hours: 9, minutes: 0, start: utc.date(2024, 1, 1), end: nil, targetValues: [], text: nil)
        }
        #expect(badWeekday?.code == .invalidSchedule)
        #expect(throws: CloudantError.self) {
            try Schedule.dailyAtTime(hour: 25, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: nil)
        }
    }

    @Test func startAndEndDatesSpanTheElements() throws {
        let utc = try Zone.utc()
        let early = ScheduleElement(
            start: try utc.date(2024, 1, 1), end: try utc.date(2024, 2, 1), interval: .daily, calendar: utc.calendar)
        let late = ScheduleElement(
            start: try utc.date(2024, 1, 5), end: try utc.date(2024, 3, 1), interval: .daily, calendar: utc.calendar)
        let finite = Schedule(composing: [late, early])
        #expect(finite.startDate == (try utc.date(2024, 1, 1)))
        #expect(finite.endDate == (try utc.date(2024, 3, 1)))
        let endless = ScheduleElement(start: try utc.date(2024, 1, 9), end: nil, interval: .daily, calendar: utc.calendar)
        #expect(Schedule(composing: [finite, Schedule(composing: [endless])]).endDate == nil)
    }

    @Test func offsetMovesEveryElementByTheCalendarComponents() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: utc.date(2024, 1, 10), text: nil,
            calendar: utc.calendar)
        let moved = try #require(schedule.offset(by: ScheduleInterval(days: 2, hours: 1)))
        let element = try #require(moved.elements.first)
        #expect(utc.wallClock(element.start) == WallClock(year: 2024, month: 1, day: 3, hour: 9))
        #expect(element.end.map { utc.wallClock($0) } == WallClock(year: 2024, month: 1, day: 12, hour: 1))
    }

    @Test func aTaskIsEffectiveFromItsScheduleStartUnlessToldOtherwise() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: nil, calendar: utc.calendar)
        let task = CareTask(id: "meds", title: nil, carePlanUUID: nil, schedule: schedule, uuid: testUUID(1))
        #expect(task.effectiveDate == (try utc.date(2024, 1, 1, 8)))
        #expect(task.impactsAdherence)
    }

    @Test func aScheduleExistsOnDaysItSpansEvenWithoutAnEventThatDay() throws {
        let utc = try Zone.utc()
        let element = ScheduleElement(
            start: try utc.date(2024, 1, 1, 8), end: try utc.date(2024, 1, 10), interval: ScheduleInterval(days: 3),
            calendar: utc.calendar)
        let schedule = Schedule(composing: [element])
        #expect(schedule.exists(onDay: try utc.date(2024, 1, 2, 12), calendar: utc.calendar))
        #expect(schedule.exists(onDay: try utc.date(2024, 1, 1), calendar: utc.calendar))
        #expect(!schedule.exists(onDay: try utc.date(2023, 12, 31), calendar: utc.calendar))
        #expect(!schedule.exists(onDay: try utc.date(2024, 1, 10, 12), calendar: utc.calendar))
    }

    @Test func anEmptyRangeHasNoEvents() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: nil, calendar: utc.calendar)
        #expect(try schedule.events(from: utc.date(2024, 1, 5), to: utc.date(2024, 1, 5), in: utc.timeZone).isEmpty)
    }

    @Test func aNegativeOccurrenceIsAnInvalidValue() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: nil, calendar: utc.calendar)
        let error = #expect(throws: CloudantError.self) { try schedule.event(forOccurrence: -1, in: utc.timeZone) }
        #expect(error?.code == .invalidInput)
    }

    @Test func anOccurrencePastAFiniteScheduleHasNoEvent() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: utc.date(2024, 1, 3), text: nil,
            calendar: utc.calendar)
        #expect(try schedule.event(forOccurrence: 1, in: utc.timeZone) != nil)
        #expect(try schedule.event(forOccurrence: 2, in: utc.timeZone) == nil)
    }
}
