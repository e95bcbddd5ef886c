import Foundation

/// One benchmark: a name, a baseline measured in the same run, and candidates compared against it.
struct BenchmarkGroup {
    /// A timed body; `setUp` runs untimed before every repetition, `body` is timed.
    struct Case {
        var name: String
        var setUp: () async throws -> Void = {}
        var body: () async throws -> Void
        var tearDown: () async throws -> Void = {}
    }

    var name: String
    var unit: String
    var operations: Int
    var baseline: Case
    var candidates: [Case]
    var target: Double?

    /// Runs every case `repetitions` times, interleaved so drift in the machine hits all of them alike,
    /// prints medians and the ratio of each candidate to the baseline, records a row per candidate for
    /// ``MarkdownReport``, and returns the medians (baseline first).
    /// With `extraPerOperation`, each candidate also shows what it adds to one operation over the baseline.
    @discardableResult
    func run(repetitions: Int, extraPerOperation: Bool = false) async throws -> [Double] {
        // `BENCHMARK_ONLY=text` runs only the candidates whose name contains `text` (and the baseline), to
        // profile one without the others' samples; the others keep their place with a NaN median, so groups
        // that read the returned medians by position still can.
        let only = ProcessInfo.processInfo.environment["BENCHMARK_ONLY"]
        let cases = [baseline] + candidates
        let runs = cases.indices.map { index in index == 0 || only.map { cases[index].name.contains($0) } ?? true }
        var samples = Array(repeating: [Double](), count: cases.count)
        for _ in 0..<repetitions {
            for (index, benchmarkCase) in cases.enumerated() where runs[index] {
                try await benchmarkCase.setUp()
                let start = ContinuousClock.now
                try await benchmarkCase.body()
                let elapsed = ContinuousClock.now - start
                try await benchmarkCase.tearDown()
                samples[index].append(elapsed.seconds)
            }
        }
        let medians = samples.map(Statistics.median)
        print("\n\(name)  (\(operations) \(unit), median of \(repetitions) runs)")
        for (index, benchmarkCase) in cases.enumerated() where runs[index] {
            let ratio = medians[index] / medians[0]
            let rate = Double(operations) / medians[index]
            var line = "  \(benchmarkCase.name.padding(toLength: 40, withPad: " ", startingAt: 0))"
            if medians[index] < 0.1 {
                line += String(format: "%8.2f ms  %12.0f %@/s", medians[index] * 1000, rate, unit)
            } else {
                line += String(format: "%9.3f s  %12.0f %@/s", medians[index], rate, unit)
            }
            if index > 0 {
                line += String(format: "  %5.2f× baseline", ratio)
                var ratioCell = String(format: "%.2f×", ratio)
                if extraPerOperation {
                    let extra = (medians[index] - medians[0]) / Double(operations) * 1000
                    line += String(format: "  %+.3f ms per %@", extra, String(unit.dropLast()))
                    ratioCell += String(format: " (%+.3f ms per %@)", extra, String(unit.dropLast()))
                }
                if let target { line += ratio <= target ? "  (target ≤ \(target)×: met)" : "  (target ≤ \(target)×: MISSED)" }
                MarkdownReport.shared.record(.init(
                    workload: "\(name): \(benchmarkCase.name) (median of \(repetitions))",
                    ours: MarkdownReport.time(medians[index]), baseline: "\(baseline.name): \(MarkdownReport.time(medians[0]))",
                    ratio: ratioCell, target: target.map { "≤ \($0)× (" + (ratio <= $0 ? "met" : "missed") + ")" } ?? "—"))
            } else {
                line += "  (baseline)"
            }
            print(line)
            if ProcessInfo.processInfo.environment["BENCHMARK_SAMPLES"] != nil {
                print("      runs: " + samples[index].map { String(format: "%.3f", $0) }.joined(separator: " "))
            }
        }
        return medians
    }
}

enum Statistics {
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 0 ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}

extension Duration {
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
