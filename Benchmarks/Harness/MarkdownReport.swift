import Foundation

/// This run's figures as Markdown tables, one per area, for `--markdown FILE`: each area's table replaces
/// what stands between `<!-- benchmark: AREA -->` and `<!-- end benchmark -->` in the file (Benchmarks/README.md),
/// so the page's tables are always a run's output and never written by hand. Areas this run did not measure
/// keep their table.
///
/// Every benchmark reports through ``BenchmarkGroup/run(repetitions:extraPerOperation:)`` or, when it
/// measures child processes, through ``record(_:)`` itself; `main.swift` names the area before each runs.
final class MarkdownReport: @unchecked Sendable {
    /// One line of a table: what was measured, our figure, the baseline's, their ratio and the target.
    struct Row: Sendable {
        var workload: String
        var ours: String
        var baseline: String
        var ratio: String
        var target: String
    }

    /// The report of this process.
    static let shared = MarkdownReport()

    /// Protects `area`, `rows` and `notes`: benchmarks record from whatever task they finish on.
    private let lock = NSLock()
    private var area = "other"
    private var rows: [(area: String, row: Row)] = []
    private var notes: [String: [String]] = [:]

    /// The area the next rows belong to (`store`, `query`, …: the names of the README's markers).
    func begin(area: String) {
        lock.withLock { self.area = area }
    }

    /// Adds a row to the current area's table.
    func record(_ row: Row) {
        lock.withLock { rows.append((area, row)) }
    }

    /// Adds a sentence printed under the current area's table (how a figure was taken, what was skipped).
    func note(_ text: String) {
        lock.withLock { notes[area, default: []].append(text) }
    }

    /// The tables of this run, by area.
    func tables(date: String, command: String) -> [String: String] {
        let (rows, notes) = lock.withLock { (self.rows, self.notes) }
        var byArea: [String: [Row]] = [:]
        var order: [String] = []
        for (area, row) in rows {
            if byArea[area] == nil { order.append(area) }
            byArea[area, default: []].append(row)
        }
        var tables: [String: String] = [:]
        for area in order {
            var text = "### \(Self.title(area))\n\n"
            text += "`\(command)`, release build, \(date). Ratios are ours ÷ the baseline in the same run.\n\n"
            text += "| workload | ours | baseline | ratio | target | date |\n|---|---|---|---|---|---|\n"
            for row in byArea[area] ?? [] {
                let cells = [row.workload, row.ours, row.baseline, row.ratio, row.target, date]
                text += "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |\n"
            }
            for note in notes[area] ?? [] { text += "\n" + note + "\n" }
            tables[area] = text
        }
        return tables
    }

    /// Replaces each measured area's block in `file` (or prints the tables when `file` is `-`).
    /// - Throws: when the file cannot be read or written, or has no marker for an area this run measured.
    func write(to file: String, command: String, now: Date = Date()) throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let tables = tables(date: formatter.string(from: now), command: command)
        if file == "-" {
            for (_, table) in tables.sorted(by: { $0.key < $1.key }) { print("\n" + table) }
            return
        }
        var text = try String(contentsOfFile: file, encoding: .utf8)
        for (area, table) in tables {
            let start = "<!-- benchmark: \(area) -->"
            let end = "<!-- end benchmark -->"
            guard let open = text.range(of: start),
                let close = text.range(of: end, range: open.upperBound..<text.endIndex)
            else { throw BenchmarkFailure("\(file) has no `\(start)` … `\(end)` block for the \(area) table") }
            text.replaceSubrange(open.upperBound..<close.lowerBound, with: "\n" + table + "\n")
        }
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        print("\nwrote the \(tables.keys.sorted().joined(separator: ", ")) tables into \(file)")
    }

    /// A median for a table: milliseconds below a tenth of a second, else seconds.
    static func time(_ seconds: Double) -> String {
        seconds < 0.1 ? String(format: "%.2f ms", seconds * 1000) : String(format: "%.3f s", seconds)
    }

    private static func title(_ area: String) -> String {
        switch area {
        case "layer": "SQLite access layer"
        case "care-health": "Care and health"
        case "models": "Object models"
        default: area.prefix(1).uppercased() + area.dropFirst()
        }
    }
}
