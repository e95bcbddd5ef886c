internal import CloudantCareModule
internal import Foundation

// The rules that turn samples into an event's outcome (pure; the store shell reads the samples).
//
// The event's window is [start, end), except that an all-day event's window is its whole day: CareKit ends an
// all-day event at the day's last second (23:59:59), and counting samples only to there would lose the last
// second of every day, so the window runs to the next midnight (the event's end + 1 s).
//
// Which samples belong to an event window [start, end):
// - a sample with a duration belongs when it overlaps the event for a positive time:
//   sample.start < event.end and sample.end > event.start;
// - an instantaneous sample (start == end, a heart rate or a weight) belongs when event.start <= start < event.end.
// So a sample that ends exactly when the event starts, or starts exactly when it ends, belongs to the
// neighbouring event only, and every instant of time belongs to exactly one of two adjacent events.
//
// Cumulative quantities (steps, energy): the outcome is one value, the sum over the event's samples of
//   value × overlap / duration
// where overlap is the time the sample and the event share, and duration the sample's length: a sample lying
// inside the event counts in full, one straddling midnight is split between the two days in proportion to the
// time it spends in each (HealthKit's statistics collections divide samples across their intervals this way;
// CareKit's passthrough store instead queries with strict start and end dates and drops such a sample from both
// days, losing it). An instantaneous sample of a cumulative type counts in full in the event holding its instant.
// The sum is added in sample start order (then uuid), so the same samples always give the same bits.
// When several sources recorded the same time (an iPhone and an Apple Watch counting one walk), that time counts
// once, from the higher-priority source, as HealthKit's statistics merge sources (see `mergedSum`); the lower
// source fills in where the higher one has no sample.
//
// Discrete quantities (heart rate, weight): one value per sample in start order, as CareKit records them, or
// one value per event when the linkage names a ``DiscreteAggregation``.
//
// An event with no sample has no outcome (CareKit: no sum, no outcome).
enum OutcomeCalculator {
    /// The outcome of each event, in the order given. `samples` must be sorted by start, then uuid.
    ///
    /// Finding an event's samples is two binary searches: samples starting in
    /// `[event.start - longest sample, event.end)` are the only candidates, so a year of daily events over a
    /// million samples reads each sample about once.
    static func outcomes(
        for events: [(taskUUID: UUID, event: ScheduleEvent)], linkage: HealthKitLinkage, samples: [SampleReading],
        computedAt now: Date
    ) -> [HealthKitOutcome?] {
        let longest = samples.map(\.duration).max() ?? 0
        return events.map { entry in
            let event = window(of: entry.event)
            let low = firstIndex(in: samples) { $0.start >= event.start.addingTimeInterval(-longest) }
            let high = firstIndex(in: samples) { $0.start >= event.end }
            guard low < high else { return nil }
            let members = samples[low..<high].filter { belongs($0, to: event) }
            guard !members.isEmpty else { return nil }
            let (values, uuids) = computeValues(members, event: event, linkage: linkage, now: now)
            return HealthKitOutcome(
                taskUUID: entry.taskUUID, taskOccurrenceIndex: entry.event.occurrence, values: values, sampleUUIDs: uuids)
        }
    }

    /// The interval samples are counted in for `event` (see the rules above).
    static func window(of event: ScheduleEvent) -> DateInterval {
        let end = event.element.duration == .allDay ? event.end.addingTimeInterval(1) : event.end
        return DateInterval(start: event.start, end: max(end, event.start))
    }

    /// Whether `sample` belongs to the event window `event` (see the rules above).
    static func belongs(_ sample: SampleReading, to event: DateInterval) -> Bool {
        if sample.start == sample.end { return event.start <= sample.start && sample.start < event.end }
        return sample.start < event.end && sample.end > event.start
    }

    /// The part of `sample`'s value that falls in the window `event`: all of it for an instantaneous sample that
    /// belongs or a sample inside the window, else `value × overlap / duration` (multiplied first, so a share
    /// that is a whole number comes out exact).
    static func contribution(of sample: SampleReading, in event: DateInterval) -> Double {
        guard sample.end > sample.start else { return sample.value }
        let overlap = min(sample.end, event.end).timeIntervalSince(max(sample.start, event.start))
        if overlap >= sample.duration { return sample.value }
        return sample.value * max(0, overlap) / sample.duration
    }

    /// The sum of a cumulative quantity's samples in `event`, sources merged as HealthKit merges them, and the
    /// uuids of the samples that added something (in start order).
    ///
    /// Sources count in the health module's default priority (watches, then phones, then apps; by name within a
    /// kind). A source's samples all count; a lower source adds only the parts of its samples that no
    /// higher source's sample covers, prorated as above, and an instantaneous sample only when no higher source
    /// covers its instant. With one source this is the plain prorated sum.
    static func mergedSum(_ members: [SampleReading], in event: DateInterval) -> (Double, [String]) {
        // One source (the common case) is the plain prorated sum, found without hashing every sample's source.
        guard let first = members.first?.sourceRank, members.contains(where: { $0.sourceRank != first }) else {
            return (members.reduce(0) { $0 + contribution(of: $1, in: event) }, members.map(\.uuid))
        }
        let bySource = Dictionary(grouping: members, by: \.sourceRank)
        var coverage = SourceCoverage()
        var parts: [(sample: SampleReading, amount: Double)] = []
        for rank in bySource.keys.sorted() {
            let samples = bySource[rank] ?? []
            for sample in samples {
                if sample.end <= sample.start {
                    if !coverage.covers(sample.start) { parts.append((sample, sample.value)) }
                    continue
                }
                let start = max(sample.start, event.start)
                let end = min(sample.end, event.end)
                let free = coverage.uncoveredLength(from: start, to: end)
                guard free > 0 else { continue }
                let amount = free >= sample.duration ? sample.value : sample.value * free / sample.duration
                parts.append((sample, amount))
            }
            coverage.add(samples.filter { $0.end > $0.start }.map { (max($0.start, event.start), min($0.end, event.end)) })
        }
        parts.sort { ($0.sample.start, $0.sample.uuid) < ($1.sample.start, $1.sample.uuid) }
        return (parts.reduce(0) { $0 + $1.amount }, parts.map(\.sample.uuid))
    }

    private static func computeValues(
        _ members: [SampleReading], event: DateInterval, linkage: HealthKitLinkage, now: Date
    ) -> ([OutcomeValue], [[String]]) {
        let units = linkage.unitString
        func value(_ number: Double) -> OutcomeValue { OutcomeValue(.double(number), units: units, createdDate: now) }
        switch (linkage.quantityType, linkage.aggregation) {
        case (.cumulative, _):
            let (sum, counted) = mergedSum(members, in: event)
            return ([value(sum)], [counted])
        case (.discrete, nil):
            return (members.map { value($0.value) }, members.map { [$0.uuid] })
        case (.discrete, .latest?):
            let latest = members.max { ($0.start, $0.end, $0.uuid) < ($1.start, $1.end, $1.uuid) } ?? members[0]
            return ([value(latest.value)], [[latest.uuid]])
        case (.discrete, .minimum?):
            let smallest = members.min { ($0.value, $0.uuid) < ($1.value, $1.uuid) } ?? members[0]
            return ([value(smallest.value)], [[smallest.uuid]])
        case (.discrete, .maximum?):
            let largest = members.max { ($0.value, $0.uuid) < ($1.value, $1.uuid) } ?? members[0]
            return ([value(largest.value)], [[largest.uuid]])
        case (.discrete, .average?):
            let mean = members.map(\.value).reduce(0, +) / Double(members.count)
            return ([value(mean)], [members.map(\.uuid)])
        }
    }

    /// The first index whose element satisfies `predicate`, which must be false then true along the array.
    private static func firstIndex(in samples: [SampleReading], where predicate: (SampleReading) -> Bool) -> Int {
        var low = 0
        var high = samples.count
        while low < high {
            let middle = (low + high) / 2
            if predicate(samples[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
