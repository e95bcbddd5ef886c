internal import CloudantOnly
internal import Foundation

/// What `cloudant replicate` tells a person on standard error while it runs: the progress line, and a log
/// line for each document that could not be written and each change of state (waiting for a peer to come
/// back, resumed, stopping).
///
/// The progress line is redrawn in place on a terminal; `--progress` prints it where standard error is not a
/// terminal too (one line each time it changes), `--quiet` leaves it out. Log lines are always printed.
final class ReplicationReporter: @unchecked Sendable {
    /// How the progress line is shown.
    enum Mode {
        /// Redrawn in place, on a terminal only.
        case automatic
        /// Always: redrawn in place on a terminal, a line per change elsewhere.
        case forced
        /// Never.
        case quiet
    }

    // `lock` protects everything below: reports come from the replicator's task, log lines from others.
    private let lock = NSLock()
    private let mode: Mode
    private let isTerminal: Bool
    private let name: String
    private var lineShown = false
    private var lastLine = ""
    private var lastState: ReplicationProgress.State?
    private var failuresLogged: Set<String> = []

    /// A reporter for the replication `name` (its source and target, without credentials).
    init(mode: Mode, name: String, isTerminal: Bool = isatty(FileHandle.standardError.fileDescriptor) == 1) {
        self.mode = mode
        self.name = name
        self.isTerminal = isTerminal
    }

    /// Takes one report: logs what changed, then shows the progress line.
    func show(_ step: ReplicationProgress) {
        lock.withLock {
            for failure in step.stats.failures {
                let key = (failure.id ?? "") + " " + (failure.rev ?? "")
                guard failuresLogged.insert(key).inserted else { continue }
                logLocked("\(name): " + Self.describe(failure))
            }
            if step.state != lastState { logStateLocked(step) }
            lastState = step.state
            guard showsLine, step.state != .retrying else { return }
            let line = Self.line(step)
            guard line != lastLine else { return }
            lastLine = line
            if isTerminal {
                StandardStreams.error(Data("\r\(line)   ".utf8))
                lineShown = true
            } else {
                StandardStreams.error(Data((line + "\n").utf8))
            }
        }
    }

    /// Prints a log line (above the progress line on a terminal).
    func log(_ message: String) {
        lock.withLock { logLocked(message) }
    }

    /// Ends the progress line, so what follows starts on a line of its own.
    func finish() {
        lock.withLock {
            if lineShown { StandardStreams.error(Data("\n".utf8)) }
            lineShown = false
        }
    }

    private var showsLine: Bool {
        switch mode {
        case .automatic: isTerminal
        case .forced: true
        case .quiet: false
        }
    }

    private func logStateLocked(_ step: ReplicationProgress) {
        switch step.state {
        case .retrying:
            let wait = step.retryDelay.map { " in \(Self.seconds($0)) s" } ?? ""
            logLocked("\(name): \(step.error.map { "\($0)" } ?? "a request failed"); starting again from the checkpoint\(wait).")
        case .active where lastState == .retrying:
            logLocked("\(name): resumed.")
        case .stopped:
            logLocked("\(name): stopped at a batch boundary; the checkpoint is written.")
        default:
            break
        }
    }

    private func logLocked(_ message: String) {
        if lineShown {
            StandardStreams.error(Data("\r\u{1B}[K".utf8))  // clear the progress line, then redraw it below
        }
        StandardStreams.error(Data(("cloudant replicate: " + message + "\n").utf8))
        if lineShown, !lastLine.isEmpty { StandardStreams.error(Data("\(lastLine)   ".utf8)) }
    }

    /// `[#####-----] 1200 / 5000 documents`.
    static func line(_ step: ReplicationProgress) -> String {
        let done = step.documentsProcessed
        let total = done + (step.pending ?? 0)
        let width = 30
        let filled = total == 0 ? width : min(width, width * done / max(total, 1))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let failed = step.stats.docWriteFailures > 0 ? ", \(step.stats.docWriteFailures) not written" : ""
        let state = step.state == .idle ? " (waiting for changes)" : ""
        return "[\(bar)] \(done) / \(total) documents\(failed)\(state)"
    }

    /// A failure as a log line, in the words of CouchDB's replicator log.
    static func describe(_ failure: WriteFailure) -> String {
        "could not write document \(failure.id.map { "\"\($0)\"" } ?? "(no id)") revision \(failure.rev ?? "(unknown)"): "
            + "\(failure.error) (\(failure.reason))"
    }

    private static func seconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds >= 10 ? String(Int(seconds.rounded())) : String(format: "%.1f", seconds)
    }
}
