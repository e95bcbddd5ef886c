import CTestRunDefaults
import Foundation

/// How many tests Swift Testing runs at once in this process, and who chose it.
///
/// A bare `swift test` gets CI's width from `CTestRunDefaults` (a constructor that runs before Swift Testing
/// reads its environment); a width given in the environment is kept.
public enum TestRunWidth {
    /// The width this process runs with, as Swift Testing reads it, or `nil` if none is set (every test at once).
    public static var current: Int? {
        ProcessInfo.processInfo.environment["SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH"].flatMap { Int($0) }
    }

    /// The width a bare `swift test` runs with.
    public static let defaultWidth = Int(CLOUDANT_TEST_DEFAULT_PARALLELIZATION_WIDTH)!

    /// Whether the test process set the width itself because its environment named none.
    public static var setByTestProcess: Bool { cloudant_test_run_defaults_set_width() != 0 }
}
