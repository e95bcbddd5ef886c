public import Foundation

/// A time-series chart of one quantity type's ``HealthStatistics`` drawn as SVG: one bar per bucket for
/// cumulative types (steps, energy), the average as a line over the minimum-to-maximum band for discrete
/// ones (heart rate, weight). Drawn on the server or the command line, no JavaScript needed.
///
/// ```swift
/// let year = try await store.statistics(
///     ofType: "HKQuantityTypeIdentifierHeartRate", from: jan1, to: nextJan1, by: .week)
/// let svg = HealthChart(statistics: year, timeZone: .current).svg()
/// try svg.write(toFile: "heart-rate.svg", atomically: true, encoding: .utf8)
/// ```
///
/// The SVG uses presentation attributes only (no `style` attributes or elements), so a page with a strict
/// Content-Security-Policy shows it inline; every text in it is escaped.
public struct HealthChart: Sendable {
    /// The statistics drawn.
    public var statistics: HealthStatistics
    /// The title above the chart; the type's name without its `HKQuantityTypeIdentifier` prefix when `nil`.
    public var title: String?
    /// The width of the drawing, in SVG units (pixels at 100 %).
    public var width: Double
    /// The height of the drawing.
    public var height: Double
    /// The calendar the date labels are written in.
    public var timeZone: TimeZone

    /// Creates a chart of `statistics`.
    public init(
        statistics: HealthStatistics, title: String? = nil, width: Double = 960, height: Double = 360,
        timeZone: TimeZone = .gmt
    ) {
        self.statistics = statistics
        self.title = title
        self.width = width
        self.height = height
        self.timeZone = timeZone
    }

    /// The type's short name: `HeartRate` for `HKQuantityTypeIdentifierHeartRate`.
    public static func shortName(of typeIdentifier: String) -> String {
        for prefix in ["HKQuantityTypeIdentifier", "HKCategoryTypeIdentifier"] where typeIdentifier.hasPrefix(prefix) {
            return String(typeIdentifier.dropFirst(prefix.count))
        }
        return typeIdentifier
    }

    /// The chart as a standalone SVG document (`<svg xmlns=…>…</svg>`), to save as a file or put in a page.
    public func svg() -> String {
        let plot = PlotArea(width: width, height: height)
        let buckets = statistics.buckets
        let values: [Double] = statistics.aggregation == .cumulative
            ? buckets.compactMap(\.sum) : buckets.flatMap { [$0.minimum, $0.maximum].compactMap { $0 } }
        var low = values.min() ?? 0
        var high = values.max() ?? 1
        if statistics.aggregation == .cumulative || low > 0 && low < high * 0.2 { low = min(0, low) }
        if high <= low { high = low + 1 }
        let ticks = SVGText.ticks(from: low, to: high)
        low = min(low, ticks.first ?? low)
        high = max(high, ticks.last ?? high)
        let start = buckets.first?.start.timeIntervalSince1970 ?? 0
        let end = buckets.last?.end.timeIntervalSince1970 ?? 1
        let x = { (date: Date) in plot.left + (date.timeIntervalSince1970 - start) / max(1, end - start) * plot.width }
        let y = { (value: Double) in plot.bottom - (value - low) / (high - low) * plot.height }

        let name = title ?? Self.shortName(of: statistics.typeIdentifier)
        let summary = statistics.aggregation == .cumulative
            ? "total \(SVGText.label(statistics.total ?? 0)) \(statistics.unit)"
            : "\(buckets.reduce(0) { $0 + $1.sampleCount }) samples"
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(SVGText.coordinate(width)) \(SVGText.coordinate(height))" \
            width="\(SVGText.coordinate(width))" height="\(SVGText.coordinate(height))" role="img" class="chart" \
            aria-label="\(SVGText.escape("\(name) per \(statistics.interval.rawValue), \(statistics.unit)"))" \
            font-family="system-ui, sans-serif" font-size="12">
            <title>\(SVGText.escape("\(name) per \(statistics.interval.rawValue) (\(statistics.unit)), \(summary)"))</title>
            <rect x="0" y="0" width="\(SVGText.coordinate(width))" height="\(SVGText.coordinate(height))" fill="#ffffff"/>
            <text x="\(SVGText.coordinate(plot.left))" y="20" font-size="15" font-weight="600" fill="#1d232a">\(SVGText.escape(name))</text>
            <text x="\(SVGText.coordinate(plot.right))" y="20" text-anchor="end" fill="#5b6570">\(SVGText.escape("\(statistics.unit) per \(statistics.interval.rawValue) · \(summary)"))</text>

            """
        // Value axis: grid lines with labels.
        for tick in ticks {
            let position = SVGText.coordinate(y(tick))
            svg += """
                <line x1="\(SVGText.coordinate(plot.left))" y1="\(position)" x2="\(SVGText.coordinate(plot.right))" y2="\(position)" stroke="#d6dbe0" stroke-width="1"/>
                <text x="\(SVGText.coordinate(plot.left - 6))" y="\(position)" dy="4" text-anchor="end" fill="#5b6570">\(SVGText.label(tick))</text>

                """
        }
        // Time axis: a label at each of a few bucket starts.
        let labelEvery = max(1, Int((Double(buckets.count) / (plot.width / 90)).rounded(.up)))
        for (index, bucket) in buckets.enumerated() where index % labelEvery == 0 {
            let position = SVGText.coordinate(x(bucket.start))
            svg += """
                <line x1="\(position)" y1="\(SVGText.coordinate(plot.bottom))" x2="\(position)" y2="\(SVGText.coordinate(plot.bottom + 4))" stroke="#5b6570"/>
                <text x="\(position)" y="\(SVGText.coordinate(plot.bottom + 18))" text-anchor="middle" fill="#5b6570">\(SVGText.escape(dateLabel(bucket.start)))</text>

                """
        }
        svg += statistics.aggregation == .cumulative ? bars(buckets, x: x, y: y, low: low) : band(buckets, x: x, y: y)
        svg += """
            <line x1="\(SVGText.coordinate(plot.left))" y1="\(SVGText.coordinate(plot.bottom))" x2="\(SVGText.coordinate(plot.right))" y2="\(SVGText.coordinate(plot.bottom))" stroke="#5b6570"/>
            </svg>

            """
        return svg
    }

    /// One bar per bucket with a sum; each has a `<title>` with its exact value (a tooltip in browsers).
    private func bars(_ buckets: [HealthStatistics.Bucket], x: (Date) -> Double, y: (Double) -> Double, low: Double) -> String {
        var out = "<g fill=\"#0b63ce\">\n"
        for bucket in buckets {
            guard let sum = bucket.sum, sum != 0 else { continue }
            let left = x(bucket.start)
            let barWidth = max(1, (x(bucket.end) - left) * 0.8)
            let top = min(y(sum), y(low))
            out += "<rect x=\"\(SVGText.coordinate(left + barWidth * 0.125))\" y=\"\(SVGText.coordinate(top))\" "
                + "width=\"\(SVGText.coordinate(barWidth))\" height=\"\(SVGText.coordinate(abs(y(low) - y(sum))))\">"
                + "<title>\(SVGText.escape("\(dateLabel(bucket.start)): \(SVGText.label(sum)) \(statistics.unit)"))</title></rect>\n"
        }
        return out + "</g>\n"
    }

    /// The minimum-to-maximum band and the average line, broken where buckets have no samples.
    private func band(_ buckets: [HealthStatistics.Bucket], x: (Date) -> Double, y: (Double) -> Double) -> String {
        var out = ""
        var runs: [[HealthStatistics.Bucket]] = [[]]
        for bucket in buckets {
            if bucket.average == nil {
                if !(runs.last?.isEmpty ?? true) { runs.append([]) }
            } else {
                runs[runs.count - 1].append(bucket)
            }
        }
        func middle(_ bucket: HealthStatistics.Bucket) -> Double { x(bucket.start) + (x(bucket.end) - x(bucket.start)) / 2 }
        for run in runs where !run.isEmpty {
            let upper = run.map { "\(SVGText.coordinate(middle($0))),\(SVGText.coordinate(y($0.maximum ?? 0)))" }
            let lower = run.reversed().map { "\(SVGText.coordinate(middle($0))),\(SVGText.coordinate(y($0.minimum ?? 0)))" }
            out += "<polygon points=\"\((upper + lower).joined(separator: " "))\" fill=\"#0b63ce\" fill-opacity=\"0.18\"/>\n"
            let line = run.map { "\(SVGText.coordinate(middle($0))),\(SVGText.coordinate(y($0.average ?? 0)))" }
            out += "<polyline points=\"\(line.joined(separator: " "))\" fill=\"none\" stroke=\"#0b63ce\" stroke-width=\"2\"/>\n"
        }
        // A point per bucket with its exact figures as a tooltip.
        out += "<g fill=\"#0b63ce\">\n"
        for bucket in buckets {
            guard let average = bucket.average else { continue }
            let text = "\(dateLabel(bucket.start)): average \(SVGText.label(average)), "
                + "\(SVGText.label(bucket.minimum ?? average))–\(SVGText.label(bucket.maximum ?? average)) \(statistics.unit), "
                + "\(bucket.sampleCount) samples"
            out += "<circle cx=\"\(SVGText.coordinate(middle(bucket)))\" cy=\"\(SVGText.coordinate(y(average)))\" r=\"2.5\">"
                + "<title>\(SVGText.escape(text))</title></circle>\n"
        }
        return out + "</g>\n"
    }

    /// `2024-06-01` for days and weeks, `2024-06` for months, `06-01 13:00` for hours.
    private func dateLabel(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour], from: date)
        let (year, month, day, hour) = (parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        switch statistics.interval {
        case .hour: return "\(two(month))-\(two(day)) \(two(hour)):00"
        case .day, .week: return "\(year)-\(two(month))-\(two(day))"
        case .month: return "\(year)-\(two(month))"
        }
    }
}

/// Where the plot sits inside the drawing: margins for the title and the axes' labels.
private struct PlotArea {
    let left: Double
    let right: Double
    let top: Double
    let bottom: Double

    init(width: Double, height: Double) {
        left = 56
        right = max(left + 10, width - 16)
        top = 36
        bottom = max(top + 10, height - 30)
    }

    var width: Double { right - left }
    var height: Double { bottom - top }
}

extension HealthChart {
    /// The bucket length a chart of a range this long reads best with: hours up to 3 days, days up to 92,
    /// weeks up to 3 years, months beyond.
    public static func interval(for span: TimeInterval) -> HealthStatisticsInterval {
        switch span {
        case ...(3 * 86_400): .hour
        case ...(92 * 86_400): .day
        case ...(3 * 366 * 86_400): .week
        default: .month
        }
    }
}
