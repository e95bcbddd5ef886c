import CloudantHealth
import Foundation

/// CDA extraction in documents per second beside Python lxml doing the same extraction
/// (`Baselines/cda_lxml.py`), target ≥ 1× lxml's throughput. Each document is parsed and extracted in-process
/// by both; the runs are interleaved so drift on a shared machine hits both alike, and both extractions are
/// compared line for line before anything is timed, so a baseline doing less work would show.
enum CDABenchmarks {
    static func run(repetitions: Int) async throws {
        print("\nCDA extraction: CDADocument(parsing:) beside Python lxml doing the same extraction")
        let folder = Scratch.folder("cda")
        defer { Scratch.remove(folder) }
        let inputs = try inputs(in: folder)
        var lxml: LxmlBaseline?
        switch LxmlBaseline.locate() {
        case .success(let found): lxml = found
        case .failure(let unavailable): print("  lxml baseline skipped: \(unavailable.why)")
        }
        var ratios: [Double] = []
        for input in inputs {
            if let ratio = try measure(input, beside: lxml, repetitions: repetitions) { ratios.append(ratio) }
        }
        if !ratios.isEmpty {
            let mean = exp(ratios.map(log).reduce(0, +) / Double(ratios.count))
            print(
                String(
                    format: "\nCDA overall (geometric mean of %d ratios): %.2f× lxml throughput  (target ≥ 1×: %@)",
                    ratios.count, mean, mean >= 1 ? "met" : "MISSED"))
        }
    }

    /// Times one document for us and for lxml, runs interleaved; prints both and returns ours ÷ lxml.
    private static func measure(_ input: Input, beside lxml: LxmlBaseline?, repetitions: Int) throws -> Double? {
        let document = try CDADocument(parsing: input.data)  // also the warm-up
        let entries = document.sections.reduce(0) { $0 + $1.entries.count }
        print(
            "\nCDA extraction: \(input.name) (\(kilobytes(input.data.count)), \(document.sections.count) sections, "
                + "\(entries) entries)  (\(input.iterations) documents per run, median of \(repetitions) runs)")
        let same = try lxml.map { try $0.canonicalLines(file: input.file) == canonicalLines(of: document) }
        var theirs: [Double] = []
        var ours: [Double] = []
        for _ in 0..<repetitions {
            if let lxml { theirs.append(try lxml.seconds(file: input.file, iterations: input.iterations)) }
            ours.append(try time(input))
        }
        let oursName = "CDADocument(parsing:), libxml2 \(XMLRuntime.libxml2Version)"
        let oursRate = Double(input.iterations) / Statistics.median(ours)
        guard let lxml, let same else {
            print(line(oursName, seconds: Statistics.median(ours), rate: oursRate))
            MarkdownReport.shared.record(.init(
                workload: "CDA extraction of \(input.name) (median of \(repetitions))", ours: String(format: "%.0f docs/s", oursRate),
                baseline: "lxml: not installed", ratio: "—", target: "≥ 1× lxml's throughput"))
            return nil
        }
        let lxmlRate = Double(input.iterations) / Statistics.median(theirs)
        let ratio = oursRate / lxmlRate
        print(line("Python \(lxml.versions)", seconds: Statistics.median(theirs), rate: lxmlRate) + "  (baseline)")
        print(
            line(oursName, seconds: Statistics.median(ours), rate: oursRate)
                + String(format: "  %5.2f× lxml throughput  (target ≥ 1×: %@)", ratio, ratio >= 1 ? "met" : "MISSED"))
        print("  same extraction: \(same ? "yes" : "NO — the two extractions differ")")
        MarkdownReport.shared.record(.init(
            workload: "CDA extraction of \(input.name) (median of \(repetitions)\(same ? "" : "; the extractions DIFFER"))",
            ours: String(format: "%.0f docs/s", oursRate), baseline: String(format: "Python %@: %.0f docs/s", lxml.versions, lxmlRate),
            ratio: String(format: "%.2f× the throughput", ratio), target: "≥ 1× (" + (ratio >= 1 ? "met" : "missed") + ")"))
        return ratio
    }

    /// Seconds for `input.iterations` parse + extracts.
    private static func time(_ input: Input) throws -> Double {
        var entries = 0
        let start = ContinuousClock.now
        for _ in 0..<input.iterations {
            entries += try CDADocument(parsing: input.data).sections.count
        }
        let elapsed = (ContinuousClock.now - start).seconds
        precondition(entries > 0, "every benchmark document has sections")
        return elapsed
    }

    private static func line(_ name: String, seconds: Double, rate: Double) -> String {
        "  \(name.padding(toLength: 44, withPad: " ", startingAt: 0))"
            + String(format: "%9.2f ms  %10.1f documents/s", seconds * 1000, rate)
    }

    private static func kilobytes(_ count: Int) -> String {
        count >= 1 << 20 ? String(format: "%.1f MB", Double(count) / 1_048_576) : String(format: "%.1f KB", Double(count) / 1024)
    }

    /// The extraction as text, one line per header field, section and entry: exactly what
    /// `cda_lxml.py --dump` prints for the same document when both extract the same.
    static func canonicalLines(of document: CDADocument) -> [String] {
        func field(_ value: String?) -> String { value ?? "-" }
        func code(_ code: CDACode?) -> String {
            guard let code else { return "-" }
            return [code.code, code.codeSystem, code.codeSystemName, code.displayName].map(field).joined(separator: "/")
        }
        func time(_ stamp: HL7Timestamp?) -> String {
            guard let stamp else { return "-" }
            let milliseconds = Int((stamp.date.timeIntervalSince1970 * 1000).rounded(.toNearestOrEven))
            return "\(stamp.text)/\(stamp.precision.rawValue)/\(stamp.utcOffset.map(String.init) ?? "-")/\(milliseconds)"
        }
        let type = document.documentType
        var lines = [
            "title " + field(document.title), "patientName " + field(document.patientName),
            "authorName " + field(document.authorName), "custodianName " + field(document.custodianName),
            "effectiveTime " + time(document.effectiveTime),
            "documentType " + type.templateIDs.joined(separator: ",") + " " + code(type.code) + " " + field(type.templateName),
        ]
        for section in document.sections {
            lines.append(
                "section \(section.kind.rawValue) \(code(section.code)) \(section.templateIDs.joined(separator: ",")) "
                    + "\(field(section.title)) \(section.entries.count)")
            for entry in section.entries {
                lines.append(
                    "entry " + [
                        code(entry.code), field(entry.value), field(entry.unit), code(entry.valueCode), code(entry.substance),
                        time(entry.time), time(entry.endTime),
                    ].joined(separator: "|"))
            }
        }
        return lines
    }
}
