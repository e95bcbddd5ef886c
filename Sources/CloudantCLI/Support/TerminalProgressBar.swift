internal import Foundation
#if canImport(Glibc)
internal import Glibc
#endif

/// `[#####-----]  42% 12000 documents` on standard error, redrawn in place, and only when standard error is a
/// terminal: a pipe or a log file gets none of it.
enum TerminalProgressBar {
    static let isTerminal = isatty(STDERR_FILENO) == 1

    /// Draws the bar at `fraction` (0 to 1) followed by `label`.
    static func show(fraction: Double, _ label: String) {
        guard isTerminal else { return }
        let width = 30
        let clamped = min(1, max(0, fraction))
        let filled = Int(clamped * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        StandardStreams.error(Data("\r[\(bar)] \(Int(clamped * 100))% \(label)   ".utf8))
    }

    /// Ends the bar's line.
    static func finish() {
        guard isTerminal else { return }
        StandardStreams.error(Data("\n".utf8))
    }
}
