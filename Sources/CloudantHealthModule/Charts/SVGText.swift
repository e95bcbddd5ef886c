internal import Foundation

/// Small pieces of SVG writing shared by the charts: escaped text and short numbers.
enum SVGText {
    /// `text` safe inside an SVG element or a double-quoted attribute (libxml2's escaping, as GPX files get).
    static func escape(_ text: String) -> String { XMLText.escaped(text) }

    /// A coordinate with at most one decimal (`12.5`, `300`): charts need no more, and files stay small.
    static func coordinate(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// A value as an axis label: `1.2k`, `85`, `0.25`, `3.4M`.
    static func label(_ value: Double) -> String {
        let magnitude = abs(value)
        func trimmed(_ number: Double, _ suffix: String) -> String {
            let text = String(format: number < 10 ? "%.1f" : "%.0f", number)
            return (text.hasSuffix(".0") ? String(text.dropLast(2)) : text) + suffix
        }
        switch magnitude {
        case 1_000_000...: return (value < 0 ? "-" : "") + trimmed(magnitude / 1_000_000, "M")
        case 10_000...: return (value < 0 ? "-" : "") + trimmed(magnitude / 1000, "k")
        case 100...: return String(format: "%.0f", value)
        case 1...: return String(format: magnitude < 10 ? "%.1f" : "%.0f", value).replacingOccurrences(of: ".0", with: "")
        case 0: return "0"
        default: return String(format: "%.2f", value)
        }
    }

    /// Round tick values covering `low...high`: about `count` of them, at 1, 2 or 5 times a power of ten.
    static func ticks(from low: Double, to high: Double, count: Int = 5) -> [Double] {
        guard high > low, low.isFinite, high.isFinite else { return [low] }
        let rough = (high - low) / Double(max(1, count))
        let power = pow(10, floor(log10(rough)))
        let step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough } ?? 10 * power
        var ticks: [Double] = []
        var tick = (low / step).rounded(.down) * step
        while tick <= high + step * 1e-9 {
            if tick >= low - step * 1e-9 { ticks.append(tick) }
            tick += step
        }
        // One more above when the values go past the last: the top grid line is then above every value.
        if let last = ticks.last, last < high - step * 1e-9 { ticks.append(last + step) }
        return ticks
    }
}
