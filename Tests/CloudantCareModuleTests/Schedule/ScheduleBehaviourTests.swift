import CloudantCareModule
import CloudantCore
import Foundation
import Testing

/// Schedule behaviour verified by running CareKit's own code. How task versions share events is in
/// `TaskVersionEventsTests`.
@Suite("Schedule behaviour as CareKit's code has it")
struct ScheduleBehaviourTests {
    // MARK: Chained stepping

    @Test func yearlyFromFebruary29StaysOnFebruary28EvenInLaterLeapYears() throws {
        let utc = try Zone.utc()
        let events = try utc.events(
            startingAt: utc.date(2024, 2, 29, 9), every: ScheduleInterval(years: 1),
            from: utc.date(2024, 1, 1), to: utc.date(2029, 1, 1))
        #expect(events.map { utc.wallClock($0.start).day } == [29, 28, 28, 28, 28])
        #expect(events.map { utc.wallClock($0.start).year } == [2024, 2025, 2026, 2027, 2028])
    }

    @Test func dailyAtAMissingWallTimeMovesAnHourLaterAndStaysThere() throws {
        let newYork = try Zone.newYork()
        let events = try newYork.events(
            startingAt: newYork.date(2024, 3, 9, 2, 30), every: .daily, from: newYork.date(2024, 3, 9),
            to: newYork.date(2024, 3, 13))
        #expect(events.map { newYork.wallClock($0.start).hour } == [2, 3, 3, 3])
        #expect(events.map { newYork.wallClock($0.start).minute } == [30, 30, 30, 30])
    }

    @Test func monthlyAtAMissingWallTimeAlsoStaysAnHourLater() throws {
        let newYork = try Zone.newYork()
        let events = try newYork.events(
            startingAt: newYork.date(2024, 2, 10, 2, 30), every: ScheduleInterval(months: 1),
            from: newYork.date(2024, 2, 1), to: newYork.date(2024, 6, 1))
        #expect(events.map { newYork.wallClock($0.start).hour } == [2, 3, 3, 3])
    }

    // MARK: Hour steps are absolute time

    @Test func hour24DriftsAcrossSpringForwardWhileDay1KeepsTheWallClock() throws {
        let newYork = try Zone.newYork()
        let start = try newYork.date(2024, 3, 9, 8)
        let range = (try newYork.date(2024, 3, 9), try newYork.date(2024, 3, 12))
        let hourly = try newYork.events(startingAt: start, every: ScheduleInterval(hours: 24), from: range.0, to: range.1)
        let daily = try newYork.events(startingAt: start, every: .daily, from: range.0, to: range.1)
        #expect(hourly.map { newYork.wallClock($0.start).hour } == [8, 9, 9])
        #expect(daily.map { newYork.wallClock($0.start).hour } == [8, 8, 8])
    }

    @Test func timedHour24AcrossFallBackDriftsBackAnHourWithoutLooping() throws {
        let newYork = try Zone.newYork()
        let events = try newYork.events(
            startingAt: newYork.date(2024, 11, 2, 8), every: ScheduleInterval(hours: 24),
            from: newYork.date(2024, 11, 2), to: newYork.date(2024, 11, 5))
        #expect(events.map { newYork.wallClock($0.start).hour } == [8, 7, 7])
    }

    // MARK: Schedules CareKit loops on are typed errors

    @Test func allDayElementSteppedByLessThanADayIsRejected() throws {
        let utc = try Zone.utc()
        let element = ScheduleElement(
            start: try utc.date(2024, 1, 1), end: nil, interval: ScheduleInterval(hours: 12), duration: .allDay,
            calendar: utc.calendar)
        let schedule = Schedule(composing: [element])
        let error = #expect(throws: CloudantError.self) {
            try schedule.events(from: utc.date(2024, 1, 1), to: utc.date(2024, 1, 2), in: utc.timeZone)
        }
        #expect(error?.code == .invalidSchedule)
        #expect(error?.context.field == "elements[0].interval")
        #expect(throws: CloudantError.self) { try schedule.validate(in: utc.timeZone) }
    }

    @Test func allDayHour24IsRejectedWhenTheQueryCrossesAFallBackDay() throws {
        let newYork = try Zone.newYork()
        let element = ScheduleElement(
            start: try newYork.date(2024, 10, 30), end: nil, interval: ScheduleInterval(hours: 24),
            duration: .allDay, calendar: newYork.calendar)
        let schedule = Schedule(composing: [element])
        let beforeTheChange = try schedule.events(
            from: newYork.date(2024, 10, 30), to: newYork.date(2024, 11, 2), in: newYork.timeZone)
        #expect(beforeTheChange.count == 3)
        let error = #expect(throws: CloudantError.self) {
            try schedule.events(from: newYork.date(2024, 11, 1), to: newYork.date(2024, 11, 10), in: newYork.timeZone)
        }
        #expect(error?.code == .invalidSchedule)
    }

    @Test func zeroAndBackwardIntervalsAreRejectedEvenBeforeTheFirstEvent() throws {
        let utc = try Zone.utc()
        for interval in [ScheduleInterval(), ScheduleInterval(days: -1), ScheduleInterval(days: 1, hours: -24)] {
            let error = #expect(throws: CloudantError.self) {
                try utc.events(
                    startingAt: utc.date(2024, 6, 1), every: interval, from: utc.date(2024, 1, 1),
                    to: utc.date(2024, 1, 2))
            }
            #expect(error?.code == .invalidSchedule)
        }
    }

    @Test func anEmptyScheduleAndAnElementEndingBeforeItStartsAreRejected() throws {
        let utc = try Zone.utc()
        #expect(throws: CloudantError.self) { try Schedule(composing: [ScheduleElement]()).validate() }
        let backwards = ScheduleElement(
            start: try utc.date(2024, 1, 2), end: try utc.date(2024, 1, 1), interval: .daily, calendar: utc.calendar)
        let error = #expect(throws: CloudantError.self) { try Schedule(composing: [backwards]).validate() }
        #expect(error?.code == .invalidSchedule)
        #expect(error?.context.field == "elements[0].end")
    }

    // MARK: Range edges

    @Test func anEventEndingExactlyAtTheRangeStartIsReturned() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: nil, calendar: utc.calendar)
        let events = try schedule.events(from: utc.date(2024, 1, 2, 9), to: utc.date(2024, 1, 2, 12), in: utc.timeZone)
        #expect(events.map(\.occurrence) == [1])
    }

    @Test func anEventStartingExactlyAtTheRangeEndIsNot() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: nil, calendar: utc.calendar)
        let events = try schedule.events(from: utc.date(2024, 1, 2), to: utc.date(2024, 1, 2, 8), in: utc.timeZone)
        #expect(events.isEmpty)
    }

    @Test func aCareKitDayQueryEndsAt235959AndReturnsTheAllDayEvent() throws {
        let newYork = try Zone.newYork()
        let events = try newYork.events(
            startingAt: newYork.date(2024, 3, 1), every: .daily, duration: .allDay,
            from: newYork.date(2024, 3, 10), to: newYork.date(2024, 3, 10, 23, 59, 59))
        #expect(events.map(\.occurrence) == [9])
        // The spring-forward day has 23 hours; the all-day event still ends one second before the next day.
        let event = try #require(events.first)
        #expect(event.end.timeIntervalSince(event.start) == 23 * 3600 - 1)
    }

    // MARK: Indices count events a query does not return

    @Test func anAllDayEventOfAnElementThatEndedEarlierThatDayKeepsItsIndex() throws {
        let utc = try Zone.utc()
        let allDay = ScheduleElement(
            start: try utc.date(2024, 1, 1), end: try utc.date(2024, 1, 3, 10), interval: .daily, duration: .allDay,
            calendar: utc.calendar)
        let noon = ScheduleElement(
            start: try utc.date(2024, 1, 1, 12), end: nil, interval: .daily, calendar: utc.calendar)
        let schedule = Schedule(composing: [allDay, noon])

        let fromMidDay = try schedule.events(from: utc.date(2024, 1, 3, 11), to: utc.date(2024, 1, 4), in: utc.timeZone)
        #expect(fromMidDay.map(\.occurrence) == [5])
        #expect(fromMidDay.map(\.elementIndex) == [1])

        let fromMidnight = try schedule.events(from: utc.date(2024, 1, 3), to: utc.date(2024, 1, 4), in: utc.timeZone)
        #expect(fromMidnight.map(\.occurrence) == [4, 5])
    }

    // MARK: Repeated wall times

    @Test func aRepeatedWallTimeResolvesToItsFirstOccurrence() throws {
        let newYork = try Zone.newYork()
        let schedule = try Schedule.dailyAtTime(
            hour: 1, minutes: 30, start: newYork.date(2024, 11, 3, 12), end: nil, text: nil,
            calendar: newYork.calendar)
        let start = try #require(schedule.startDate)
        // 01:30 EDT (UTC−4) is 05:30 UTC; the second 01:30 (EST) would be 06:30 UTC.
        #expect(try Zone.utc().wallClock(start) == WallClock(year: 2024, month: 11, day: 3, hour: 5, minute: 30))
    }

    @Test func steppingOntoARepeatedWallTimeAlsoLandsOnTheFirst() throws {
        let newYork = try Zone.newYork()
        let events = try newYork.events(
            startingAt: newYork.date(2024, 11, 2, 1, 30), every: .daily, from: newYork.date(2024, 11, 3),
            to: newYork.date(2024, 11, 3, 12))
        let utc = try Zone.utc()
        #expect(events.map { utc.wallClock($0.start) } == [WallClock(year: 2024, month: 11, day: 3, hour: 5, minute: 30)])
    }

    // MARK: Ended elements and stable order

    @Test func anElementHasEndedWhenItsEndIsAtOrBeforeTheRangeStart() throws {
        let utc = try Zone.utc()
        let element = ScheduleElement(
            start: try utc.date(2024, 1, 1, 8), end: try utc.date(2024, 1, 3, 9), interval: .daily,
            duration: .hours(3), calendar: utc.calendar)
        let schedule = Schedule(composing: [element])
        let atEnd = try schedule.events(from: utc.date(2024, 1, 3, 9), to: utc.date(2024, 1, 4), in: utc.timeZone)
        #expect(atEnd.isEmpty)
        let justBefore = try schedule.events(
            from: utc.date(2024, 1, 3, 8, 59), to: utc.date(2024, 1, 4), in: utc.timeZone)
        #expect(justBefore.map(\.occurrence) == [2])
    }

    @Test func eventsAtTheSameStartFollowTheOrderTheElementsWereGivenIn() throws {
        let utc = try Zone.utc()
        let first = ScheduleElement(
            start: try utc.date(2024, 1, 1, 8), end: nil, interval: .daily, text: "first", calendar: utc.calendar)
        let second = ScheduleElement(
            start: try utc.date(2024, 1, 1, 8), end: nil, interval: .daily, text: "second", calendar: utc.calendar)
        let range = (try utc.date(2024, 1, 1), try utc.date(2024, 1, 3))
        let forward = try Schedule(composing: [first, second]).events(from: range.0, to: range.1, in: utc.timeZone)
        let backward = try Schedule(composing: [second, first]).events(from: range.0, to: range.1, in: utc.timeZone)
        #expect(forward.map(\.element.text) == ["first", "second", "first", "second"])
        #expect(backward.map(\.element.text) == ["second", "first", "second", "first"])
        #expect(forward.map(\.occurrence) == [0, 1, 2, 3])
    }
}
