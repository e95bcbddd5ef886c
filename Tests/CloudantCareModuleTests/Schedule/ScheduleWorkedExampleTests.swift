import CloudantCareModule
import CloudantCore
import Foundation
import Testing

/// Five worked examples of CareKit's schedule rules: a daily time, an all-day element, two elements sharing a
/// start, a monthly chain from the 31st, and a flight across time zones. Monday is 2024-01-01.
@Suite("Schedule worked examples")
struct ScheduleWorkedExampleTests {
    @Test func dailyAt8OnWednesdayIsOccurrence2() throws {
        let utc = try Zone.utc()
        let schedule = try Schedule.dailyAtTime(
            hour: 8, minutes: 0, start: utc.date(2024, 1, 1), end: nil, text: nil, calendar: utc.calendar)
        let events = try schedule.events(
            from: utc.date(2024, 1, 3), to: utc.date(2024, 1, 3, 23, 59, 59), in: utc.timeZone)
        #expect(events.count == 1)
        #expect(events.first?.occurrence == 2)
        #expect(events.first.map { utc.wallClock($0.start) } == WallClock(year: 2024, month: 1, day: 3, hour: 8))
        #expect(events.first.map { utc.wallClock($0.end) } == WallClock(year: 2024, month: 1, day: 3, hour: 9))
    }

    @Test func allDayStartIsSnappedAndWednesdayIsOccurrence2() throws {
        let utc = try Zone.utc()
        let element = ScheduleElement(
            start: try utc.date(2024, 1, 1, 15), end: nil, interval: .daily, duration: .allDay,
            calendar: utc.calendar)
        #expect(element.start == (try utc.date(2024, 1, 1)))
        let events = try Schedule(composing: [element]).events(
            from: utc.date(2024, 1, 3), to: utc.date(2024, 1, 3, 23, 59, 59), in: utc.timeZone)
        #expect(events.map(\.occurrence) == [2])
        #expect(events.first.map { utc.wallClock($0.start) } == WallClock(year: 2024, month: 1, day: 3))
        #expect(
            events.first.map { utc.wallClock($0.end) }
                == WallClock(year: 2024, month: 1, day: 3, hour: 23, minute: 59, second: 59))
    }

    @Test func twoElementsShareOneStartOrderedOccurrenceIndex() throws {
        let utc = try Zone.utc()
        let schedule = try twoElementSchedule(utc)
        let events = try schedule.events(from: utc.date(2024, 1, 1), to: utc.date(2024, 1, 4), in: utc.timeZone)
        #expect(events.map(\.occurrence) == [0, 1, 2, 3, 4])
        #expect(events.map { utc.wallClock($0.start) } == [
            WallClock(year: 2024, month: 1, day: 1, hour: 8), WallClock(year: 2024, month: 1, day: 1, hour: 20),
            WallClock(year: 2024, month: 1, day: 2, hour: 8), WallClock(year: 2024, month: 1, day: 3, hour: 8),
            WallClock(year: 2024, month: 1, day: 3, hour: 20),
        ])
        #expect(events.map(\.elementIndex) == [0, 1, 0, 0, 1])
    }

    @Test func aWednesdayQueryKeepsTheScheduleWideIndices() throws {
        let utc = try Zone.utc()
        let events = try twoElementSchedule(utc).events(
            from: utc.date(2024, 1, 3), to: utc.date(2024, 1, 4), in: utc.timeZone)
        #expect(events.map(\.occurrence) == [3, 4])
    }

    @Test func occurrence3IsWednesdayAt8() throws {
        let utc = try Zone.utc()
        let event = try twoElementSchedule(utc).event(forOccurrence: 3, in: utc.timeZone)
        #expect(event.map { utc.wallClock($0.start) } == WallClock(year: 2024, month: 1, day: 3, hour: 8))
        #expect(event?.occurrence == 3)
        #expect(event?.elementIndex == 0)
    }

    @Test func monthlyFromJanuary31StaysOnThe28thAfterFebruary() throws {
        let utc = try Zone.utc()
        let events = try utc.events(
            startingAt: utc.date(2023, 1, 31, 9), every: ScheduleInterval(months: 1),
            from: utc.date(2023, 1, 1), to: utc.date(2023, 6, 1))
        #expect(events.map { utc.wallClock($0.start).day } == [31, 28, 28, 28, 28])
        #expect(events.map { utc.wallClock($0.start).month } == [1, 2, 3, 4, 5])
    }

    @Test func inALeapYearTheChainStaysOnThe29th() throws {
        let utc = try Zone.utc()
        let events = try utc.events(
            startingAt: utc.date(2024, 1, 31, 9), every: ScheduleInterval(months: 1),
            from: utc.date(2024, 1, 1), to: utc.date(2024, 5, 1))
        #expect(events.map { utc.wallClock($0.start).day } == [31, 29, 29, 29])
    }

    @Test func afterAFlightATimedEventKeepsItsInstantAndDayStepsFollowTheNewZone() throws {
        let newYork = try Zone.newYork()
        let paris = try Zone.paris()
        var task = CareTask(
            id: "meds", title: "Meds", carePlanUUID: nil,
            schedule: try Schedule.dailyAtTime(
                hour: 8, minutes: 0, start: newYork.date(2024, 3, 1), end: nil, text: nil,
                calendar: newYork.calendar))
        // The record's own time zone is recorded only; it does not steer the computation.
        task.timezone = try #require(TimeZone(identifier: "Asia/Tokyo"))

        let inParis = try task.schedule.events(
            from: paris.date(2024, 3, 11), to: paris.date(2024, 3, 12), in: paris.timeZone)
        let inNewYork = try task.schedule.events(
            from: newYork.date(2024, 3, 11), to: newYork.date(2024, 3, 12), in: newYork.timeZone)
        // 08:00 EST on Mar 1 is 14:00 in Paris; stepping by days in Paris keeps 14:00 there, while New York's
        // spring-forward on Mar 10 keeps 08:00 on the New York wall clock.
        #expect(inParis.map { paris.wallClock($0.start).hour } == [14])
        #expect(inNewYork.map { newYork.wallClock($0.start).hour } == [8])
        #expect(inParis.first?.start != inNewYork.first?.start)
    }

    @Test func allDayBoundariesFollowTheQueryZone() throws {
        let utc = try Zone.utc()
        let paris = try Zone.paris()
        let element = ScheduleElement(
            start: try utc.date(2024, 1, 1), end: nil, interval: .daily, duration: .allDay, calendar: utc.calendar)
        let events = try Schedule(composing: [element]).events(
            from: paris.date(2024, 1, 3), to: paris.date(2024, 1, 4), in: paris.timeZone)
        #expect(events.map { paris.wallClock($0.start) } == [WallClock(year: 2024, month: 1, day: 3)])
    }

    private func twoElementSchedule(_ zone: Zone) throws -> Schedule {
        let daily = ScheduleElement(
            start: try zone.date(2024, 1, 1, 8), end: nil, interval: .daily, calendar: zone.calendar)
        let everyOtherDay = ScheduleElement(
            start: try zone.date(2024, 1, 1, 20), end: nil, interval: ScheduleInterval(days: 2),
            calendar: zone.calendar)
        return Schedule(composing: [everyOtherDay, daily])
    }
}
